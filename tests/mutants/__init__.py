"""The catalogue of mistakes and the program that applies them: python3 -m tests.mutants.run_mutants"""
