"""Tests of the renderer (render/): python3 -m tests.render.test_render_results, .test_figures, .test_render_package"""
