"""Keeps a CUDA context open on GPU 0 while the speed tests run (ctest's fixture around speed_stepNN).
usage: python3 -m tools.hold_gpu start STATE_FILE | stop STATE_FILE

Each speed test starts six short programs, and each program first creates its CUDA context: that
takes longer while no other process holds a context on the GPU (tools/README.md says how much). The
held context is idle: it launches nothing, so the kernels timed still have the GPU to themselves.

start: starts the holder in the background and returns once it holds the context (exit 0), or says why
it could not (exit 77, ctest: Skipped, without a usable GPU; exit 0 otherwise: the speed tests then
run without it, as before). The holder writes its process id to STATE_FILE and ends by itself when
STATE_FILE is removed, when the process that ran start (ctest) has ended, or after an hour.
stop: removes STATE_FILE and ends the holder. Exit 0; 77 (Skipped) when nothing was held."""

import ctypes
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

SKIPPED = 77
LONGEST_HOLD_S = 3600
READY_TIMEOUT_S = 60


def hold(state_file, watched_pid, report):  # in the background process; `report` is the pipe to start
    def say(text):
        os.write(report, (text + "\n").encode())
        os.close(report)

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as error:
        return say(f"no GPU: the CUDA driver library cannot be loaded ({error})")
    device, context = ctypes.c_int(), ctypes.c_void_p()
    code = cuda.cuInit(0)
    if code == 0:
        code = cuda.cuDeviceGet(ctypes.byref(device), 0)
    if code == 0:
        code = cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    if code != 0:
        return say(f"no GPU: the driver returned CUresult {code}")
    state_file.write_text(f"{os.getpid()}\n")
    say("held")
    deadline = time.monotonic() + LONGEST_HOLD_S
    while state_file.is_file() and time.monotonic() < deadline:
        try:
            os.kill(watched_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.5)
    state_file.unlink(missing_ok=True)  # the context goes with the process


def start(state_file):
    read, write = os.pipe()
    subprocess.Popen([sys.executable, "-m", "tools.hold_gpu", "hold", str(state_file), str(os.getppid()), str(write)],
                     cwd=Path(__file__).resolve().parent.parent, pass_fds=(write,), start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:  # one line from the holder, or end of file if it died first
        if select.select([pipe], [], [], READY_TIMEOUT_S)[0]:
            answer = pipe.readline().strip() or "the holder ended without an answer"
        else:
            answer = f"the holder did not answer within {READY_TIMEOUT_S} s"
    if answer == "held":
        print(f"hold_gpu: a CUDA context is held on GPU 0 until stop ({state_file})")
        return 0
    print(f"hold_gpu: not held: {answer}")
    return SKIPPED if answer.startswith("no GPU") else 0


def stop(state_file):
    try:
        pid = int(state_file.read_text().split()[0])
        state_file.unlink()
    except (OSError, ValueError, IndexError):
        print(f"hold_gpu: nothing held ({state_file} absent or unreadable)")
        return SKIPPED
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    print(f"hold_gpu: released (process {pid})")
    return 0


def main(argv):
    if len(argv) == 4 and argv[0] == "hold":
        hold(Path(argv[1]), int(argv[2]), int(argv[3]))
        return 0
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print(__doc__.splitlines()[1], file=sys.stderr)
        return 2
    return (start if argv[0] == "start" else stop)(Path(argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
