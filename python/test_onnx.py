"""Tests of the ONNX entry points of the Python bindings (run by CTest when built with ONNX)."""
import sys
import unittest

import memplan

MODEL = "/usr/share/libonnx-testdata/data/pytorch-converted/test_ConvTranspose2d/model.onnx"


class OnnxBindingsTest(unittest.TestCase):
    def test_problem_and_summary_agree(self):
        p = memplan.onnx_problem(MODEL)
        # Input '0' [1,1,...] and output '3', each a plain float tensor; the weights are left out.
        self.assertEqual(sorted(b.id for b in p.buffers), ["0", "3"])
        s = memplan.onnx_summary(MODEL, time_limit=1)
        self.assertEqual(s["buffers"], len(p))
        self.assertEqual(s["naive"], sum(b.size for b in p.buffers))
        self.assertEqual(s["load"], memplan.load(p))
        self.assertGreaterEqual(s["peak"], s["load"])
        self.assertGreater(s["weights"], 0)
        self.assertEqual([n for n, _ in s["live_at_peak"]], ["3", "0"])  # largest first
        ok, errors = memplan.validate(p, s["offsets"])
        self.assertTrue(ok, errors)

    def test_misspelled_names_raise(self):
        with self.assertRaisesRegex(ValueError, "--dim 'batch'"):
            memplan.onnx_problem(MODEL, dims={"batch": 2})
        with self.assertRaisesRegex(ValueError, "--input 'images'"):
            memplan.onnx_problem(MODEL, inputs={"images": [1, 3, 8, 8]})


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
