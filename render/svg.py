"""The SVG writer: a document built element by element, cells, rows of cells, a chart with log axes."""

import math
import textwrap

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILLION, PURPLE = (  # Okabe and Ito's palette, safe for colour-blind eyes
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
GREY, LIGHT, PALE_BLUE, PALE_ORANGE, PALE_GREEN = "#767676", "#d9d9d9", "#cfe6f5", "#fbe3b3", "#c7ead9"
STYLES = {"white": ("#ffffff", BLACK, BLACK, None), "on": (PALE_BLUE, BLACK, BLACK, None),
          "off": ("#ffffff", LIGHT, GREY, None), "idle": ("#f2f2f2", LIGHT, GREY, None),  # fill, stroke, text, dash
          "gap": ("#ffffff", LIGHT, GREY, "3 2"), "plain": ("none", "none", BLACK, None),
          "warn": (PALE_ORANGE, BLACK, BLACK, None), "good": (PALE_GREEN, BLACK, BLACK, None),
          "b0": (PALE_BLUE, BLUE, BLACK, None), "b1": (PALE_ORANGE, ORANGE, BLACK, None),
          "b2": (PALE_GREEN, GREEN, BLACK, None), "b3": ("#f3d9e8", PURPLE, BLACK, None)}
STRONG = {"b0": BLUE, "b1": ORANGE, "b2": GREEN, "b3": PURPLE}  # b0 .. b3: a figure's blocks (or GPUs)


def num(value):
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class Svg:
    def __init__(self, width, height, title, subtitle=None, at=48, size=12):
        self.width, self.height, self.title, self.items = width, height, title, []
        self.text(16, 26, title, size=16, weight="bold")
        if subtitle is not None:
            self.text(16, at, subtitle, size=size, fill=GREY)

    def add(self, tag, content=None, **attributes):
        parts = [tag] + [f'{key.rstrip("_").replace("_", "-")}="{escape(num(v) if isinstance(v, (int, float)) else v)}"'
                         for key, v in attributes.items() if v is not None]
        self.items.append(f"<{' '.join(parts)}/>" if content is None else
                          f"<{' '.join(parts)}>{escape(content)}</{tag}>")

    def rect(self, x, y, w, h, fill="none", stroke=BLACK, width=1, dash=None, rx=None):
        self.add("rect", x=x, y=y, width=w, height=h, fill=fill, stroke=stroke, stroke_width=width,
                 stroke_dasharray=dash, rx=rx)

    def line(self, x1, y1, x2, y2, stroke=BLACK, width=1, dash=None, arrow=False):
        self.add("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, stroke_width=width, stroke_dasharray=dash,
                 marker_end="url(#arrow)" if arrow else None)

    def polyline(self, points, stroke=BLACK, width=1.5, dash=None):
        self.add("polyline", points=" ".join(f"{num(x)},{num(y)}" for x, y in points), fill="none", stroke=stroke,
                 stroke_width=width, stroke_dasharray=dash)

    def text(self, x, y, content, size=12, anchor="start", weight=None, fill=BLACK, style=None, rotate=None):
        self.add("text", content, x=x, y=y, font_size=size, text_anchor=anchor, font_weight=weight, fill=fill,
                 font_style=style, transform=f"rotate({num(rotate)} {num(x)} {num(y)})" if rotate else None)

    def marker(self, shape, x, y, colour, size=4.5):
        corners = {"triangle": [(0, -1.2), (1.1, 0.8), (-1.1, 0.8)], "down": [(0, 1.2), (1.1, -0.8), (-1.1, -0.8)],
                   "diamond": [(0, -1.3), (1.1, 0), (0, 1.3), (-1.1, 0)],
                   "cross": [(-1, -1), (1, 1), (0, 0), (1, -1), (-1, 1), (0, 0)]}.get(shape, [])
        points = " ".join(f"{num(x + dx * size)},{num(y + dy * size)}" for dx, dy in corners)
        if shape == "circle":
            self.add("circle", cx=x, cy=y, r=size, fill=colour, stroke=colour)
        elif shape == "square":
            self.rect(x - size, y - size, 2 * size, 2 * size, fill=colour, stroke=colour)
        else:
            self.add("polygon" if shape != "cross" else "polyline", points=points, fill=colour if shape != "cross"
                     else "none", stroke=colour, stroke_width=2 if shape == "cross" else None)

    def caption(self, y, text, width=120):
        for line in textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False):
            self.text(16, y, line)
            y += 12 * 1.35
        self.height = y + 4
        return self

    def render(self, comment):
        head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(self.width)}" height="{num(self.height)}" '
                f'viewBox="0 0 {num(self.width)} {num(self.height)}" font-family="{FONT}">',
                f"<!-- {escape(comment).replace('--', '- -')} -->", f"<title>{escape(self.title)}</title>",
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
                'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#444444"/></marker></defs>',
                f'<rect x="0" y="0" width="{num(self.width)}" height="{num(self.height)}" fill="#ffffff"/>']
        return "\n".join(head + self.items + ["</svg>"]) + "\n"


def cell(svg, x, y, w, h, label, style="white", size=11):
    fill, stroke, colour, dash = STYLES[style]
    if stroke != "none":
        svg.rect(x, y, w, h, fill=fill, stroke=stroke, dash=dash)
    if label != "":
        svg.text(x + w / 2, y + h / 2 + size * 0.36, label, size=size, anchor="middle", fill=colour)


class Grid:
    def __init__(self, svg, left, top, cw, ch=24, gap=30, size=10):
        self.svg, self.left, self.cw, self.ch, self.gap, self.size, self.y, self.ys = svg, left, cw, ch, gap, size, top, []

    def x(self, column):
        return self.left + column * self.cw

    def row(self, cells, label=None, note=None, above=None, gap=None, note_fill=BLACK, label_fill=BLACK):
        svg, y = self.svg, self.y
        self.ys.append(y)
        for c, item in enumerate(cells):
            if item is not None:
                cell(svg, self.x(c), y, self.cw, self.ch, *(item if isinstance(item, tuple) else (item,)),
                     size=self.size)
            if above and c < len(above) and above[c] not in (None, ""):
                svg.text(self.x(c) + self.cw / 2, y - 6, above[c], size=8, anchor="middle", fill=GREY)
        middle = y + self.ch / 2 + 4
        if label is not None:
            svg.text(self.left - 10, middle, label, size=11, anchor="end", fill=label_fill)
        if note is not None:
            svg.text(self.x(len(cells)) + 12, middle, note, size=11, fill=note_fill)
        self.y += self.ch + (self.gap if gap is None else gap)
        return len(self.ys) - 1

    def join(self, start, end, colour="#444444", arrow=True, width=1.2, shift=0):
        (r1, c1), (r2, c2) = start, end
        self.svg.line(self.x(c1) + self.cw / 2, self.ys[r1] + self.ch, self.x(c2) + self.cw / 2 + shift,
                      self.ys[r2] - (2 if arrow else 0), stroke=colour, width=width, arrow=arrow)

    def span(self, row, first, count, label, style, size=10):
        x, y = self.x(first), self.ys[row] - 22
        self.svg.rect(x, y, count * self.cw, 7, fill=STYLES[style][0], stroke=STRONG[style])
        self.svg.text(x + count * self.cw / 2, y - 6, label, size=size, anchor="middle", fill=STRONG[style],
                      weight="bold")


def log_ticks(low, high, base):
    first, last = math.floor(math.log(low, base) + 1e-9), math.ceil(math.log(high, base) - 1e-9)
    return [base ** e for e in range(first, last + 1)]


def power_label(value, base):
    return (f"2^{round(math.log2(value))}" if base == 2 else f"{value:g}" if value < 1e6
            else f"1e{round(math.log10(value))}")


def linear_ticks(low, high, count=5):
    raw = (high - low) / count or abs(high) or 1
    unit = 10 ** math.floor(math.log10(raw))
    step = next(m * unit for m in (1, 2, 2.5, 5, 10) if m * unit >= raw)
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    return [round(i * step, 10) for i in range(first, max(last, first + 1) + 1)]


class LogChart:
    def __init__(self, title, subtitle, xlabel, ylabel, xs, ys, width=900, height=520, legend_width=230,
                 linear_y=False):
        self.svg = Svg(width, height, title, subtitle, at=46, size=11)
        self.left, self.top, self.right, self.bottom = 78, 64, width - legend_width, height - 58
        self.linear_y = linear_y
        self.xticks = log_ticks(min(xs), max(xs), 2)
        self.yticks = linear_ticks(min(ys), max(ys)) if linear_y else log_ticks(min(ys), max(ys), 10)
        self.x0, self.x1 = math.log2(self.xticks[0]), math.log2(self.xticks[-1])
        self.y0, self.y1 = ((self.yticks[0], self.yticks[-1]) if linear_y
                            else (math.log10(self.yticks[0]), math.log10(self.yticks[-1])))
        svg, self.legend_y = self.svg, self.top + 6
        step = 4 if len(self.xticks) > 16 else 2 if len(self.xticks) > 8 else 1
        for x in self.xticks:
            px, labelled = self.px(x), round(math.log2(x)) % step == 0
            svg.line(px, self.top, px, self.bottom, stroke="#cccccc" if labelled else "#ececec")
            if labelled:
                svg.text(px, self.bottom + 18, power_label(x, 2), size=11, anchor="middle")
        for y in self.yticks:
            svg.line(self.left, self.py(y), self.right, self.py(y), stroke="#cccccc")
            svg.text(self.left - 8, self.py(y) + 4, f"{y:g}" if linear_y else power_label(y, 10), size=11, anchor="end")
            for minor in (m for m in (2, 5) if y * m < self.yticks[-1] and not linear_y):
                svg.line(self.left, self.py(y * minor), self.right, self.py(y * minor), stroke="#f0f0f0")
        svg.rect(self.left, self.top, self.right - self.left, self.bottom - self.top, stroke=BLACK)
        svg.text((self.left + self.right) / 2, self.bottom + 42, xlabel, size=12, anchor="middle")
        svg.text(20, (self.top + self.bottom) / 2, ylabel, size=12, anchor="middle", rotate=-90)

    def px(self, x):
        return self.left + (math.log2(x) - self.x0) / (self.x1 - self.x0) * (self.right - self.left)

    def py(self, y):
        value = y if self.linear_y else math.log10(y)
        return self.bottom - (value - self.y0) / (self.y1 - self.y0) * (self.bottom - self.top)

    def series(self, label, points, style, width=1.8):
        colour, shape, dash = style
        points = sorted(points)
        self.svg.polyline([(self.px(x), self.py(y)) for x, y in points], stroke=colour, width=width, dash=dash)
        for x, y in points if shape else []:
            self.svg.marker(shape, self.px(x), self.py(y), colour, size=3.2)
        x, y = self.right + 16, self.legend_y  # its legend
        self.svg.line(x, y, x + 34, y, stroke=colour, width=width, dash=dash)
        if shape:
            self.svg.marker(shape, x + 17, y, colour, size=3.6)
        self.svg.text(x + 42, y + 4, label, size=11)
        self.legend_y += 22

    def rule(self, value, label, vertical):
        x, y = (self.px(value), self.top) if vertical else (self.left, self.py(value))
        self.svg.line(x, y, *((x, self.bottom) if vertical else (self.right, y)), stroke=VERMILLION,
                      width=1.4 if vertical else 1.2, dash="6 3" if vertical else "2 4")
        self.svg.text(x + 4 if vertical else x + 6, y + 14 if vertical else y - 5, label, size=10, fill=VERMILLION)
