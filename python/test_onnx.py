"""Tests of the ONNX entry points of the Python bindings (run by CTest when built with ONNX)."""
import sys
import unittest

import memplan

MODEL = "/usr/share/libonnx-testdata/data/pytorch-converted/test_ConvTranspose2d/model.onnx"
LAYERNORM = "/usr/share/libonnx-testdata/data/node/test_layer_normalization_4d_axis0_expanded/model.onnx"  # 30 nodes, 20 operators


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

    def test_schedule_modes(self):
        """schedule= on onnx_summary: the kept order is a permutation of the operators, its plan
        validates against the problem lowered in that order, and no mode's peak exceeds the
        graph order's (both orders are planned, the lower peak kept)."""
        n = memplan.onnx_schedule(LAYERNORM, mode="graph")["operators"]  # after folding constants
        self.assertGreater(n, 10)
        peaks = {}
        for mode in ("graph", "memory", "exact"):
            s = memplan.onnx_summary(LAYERNORM, time_limit=2, schedule=mode)
            sc = s["schedule"]
            self.assertEqual(sc["method"], mode)
            self.assertEqual(sorted(sc["kept_order"]), list(range(n)))
            self.assertEqual(len(set(sc["kept_order_names"])), n)
            self.assertLessEqual(sc["load"], sc["graph_order_load"])
            self.assertLessEqual(s["peak"], sc["graph_peak"])
            self.assertEqual(s["peak"], min(sc["graph_peak"], sc["schedule_peak"]))
            self.assertEqual(s["graph_order_load"], sc["graph_order_load"])
            self.assertEqual(sc["kept_order_load"], sc["graph_order_load"] if sc["kept"] == "graph" else sc["load"])
            if mode != "graph":
                self.assertEqual(len(sc["heuristics"]), 6)
                self.assertLessEqual(sc["load"], min(load for _, load in sc["heuristics"]))
            else:
                self.assertEqual(sc["kept"], "graph")
            peaks[mode] = s["peak"]
            # The problem of the mode's order; in graph mode it is the kept one, so the plan fits it.
            p = memplan.onnx_problem(LAYERNORM, schedule=mode)
            self.assertEqual(len(p), s["buffers"])
            if mode == "graph" or sc["kept"] == mode:
                self.assertEqual([b.id for b in p.buffers], s["ids"])
                ok, errors = memplan.validate(p, s["offsets"])
                self.assertTrue(ok, errors)
        self.assertLessEqual(peaks["memory"], peaks["graph"])
        self.assertLessEqual(peaks["exact"], peaks["graph"])
        order = memplan.onnx_schedule(LAYERNORM, mode="exact")
        self.assertEqual(sorted(order["order"]), list(range(n)))
        with self.assertRaisesRegex(ValueError, "schedule mode"):
            memplan.onnx_summary(LAYERNORM, schedule="fastest")

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
