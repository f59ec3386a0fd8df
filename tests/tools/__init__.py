"""Tests of the classroom tools: python3 -m tests.tools.test_classroom_tools"""
