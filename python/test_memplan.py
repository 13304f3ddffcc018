"""Tests of the Python bindings (run by CTest with the built module on PYTHONPATH)."""
import os
import sys
import unittest

import memplan

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BindingsTest(unittest.TestCase):
    def test_solve_small_problem_and_validate(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8), memplan.Buffer("b", 2, 6, 4),
                             memplan.Buffer("c", 4, 8, 8)])
        self.assertEqual(memplan.load(p), 12)
        r = memplan.solve(p, algo="greedy")
        self.assertTrue(r.found)
        ok, errors = memplan.validate(p, r.offsets)
        self.assertTrue(ok, errors)
        self.assertEqual(r.peak, 12)
        self.assertTrue(r.optimal)

    def test_bad_buffer_raises_value_error(self):
        with self.assertRaises(ValueError):
            memplan.Problem([memplan.Buffer("a", 5, 5, 8)])
        with self.assertRaises(ValueError):
            memplan.Problem([memplan.Buffer("a", 0, 5, 8, alignment=3)])

    def test_unknown_algorithm_raises(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8)])
        with self.assertRaises(ValueError):
            memplan.solve(p, algo="no-such-algorithm")

    def test_capacity_too_small_gives_no_plan(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8), memplan.Buffer("b", 0, 4, 8)])
        r = memplan.solve(p, algo="greedy", capacity=10)
        self.assertFalse(r.found)
        self.assertIsNone(r.offsets)
        self.assertIn(r.status, ("infeasible", "no_plan"))

    def test_reads_bundled_benchmark(self):
        p = memplan.read_csv(os.path.join(ROOT, "benchmarks", "minimalloc", "A.1048576.csv"))
        self.assertEqual(len(p), 154)
        r = memplan.solve(p, algo="greedy", threads=2)
        ok, errors = memplan.validate(p, r.offsets, 2**21)
        self.assertTrue(ok, errors)
        self.assertGreaterEqual(r.peak, memplan.load(p))

    def test_pre_placed_buffer_is_kept(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8, offset=16), memplan.Buffer("b", 0, 4, 8)])
        r = memplan.solve(p, algo="first-fit")
        self.assertEqual(r.offsets[0], 16)
        self.assertTrue(memplan.validate(p, r.offsets)[0])

    def test_algorithms_listed(self):
        names = [n for n, _ in memplan.algorithms()]
        self.assertIn("greedy", names)
        self.assertIn("first-fit", names)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
