"""Tests of the Python bindings (run by CTest with the built module on PYTHONPATH)."""
import os
import sys
import tempfile
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

    def test_ids_with_commas_and_quotes_are_planned(self):
        # Model tensor names may hold them; CSV quotes them (only a line break is refused).
        p = memplan.Problem([memplan.Buffer('a,b "c"', 0, 4, 8), memplan.Buffer("d", 2, 6, 4)])
        r = memplan.solve(p, algo="greedy")
        self.assertTrue(r.found)
        self.assertTrue(memplan.validate(p, r.offsets)[0])
        self.assertEqual(r.peak, 12)

    def test_conflicts_survive_a_rebuilt_problem(self):
        # A partial order read from a file has explicit conflicts: rebuilding the problem from
        # its buffers dropped them, and the plan then overlapped conflicting buffers.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "c.csv")
            with open(path, "w") as f:
                f.write("id,lower,upper,size,conflicts\na,0,1,8,b;c\nb,1,2,8,\nc,2,3,8,\n")
            p = memplan.read_csv(path)
        self.assertEqual(sorted(tuple(sorted(c)) for c in p.conflicts), [(0, 1), (0, 2)])
        q = memplan.Problem(p.buffers, conflicts=p.conflicts)
        r = memplan.solve(q, algo="greedy")
        ok, errors = memplan.validate(p, r.offsets)
        self.assertTrue(ok, errors)
        self.assertNotEqual(r.offsets[0], r.offsets[1])
        for bad in ([(0, 3)], [(1, 1)], [(-1, 0)]):
            with self.assertRaises(ValueError, msg=str(bad)):
                memplan.Problem(p.buffers, conflicts=bad)

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
        # solve() explains it: LOAD 16 > 10 from t=0 (both buffers live there).
        self.assertTrue(r.explanation.startswith("t=0:load=16>10"), r.explanation)
        self.assertIn("explain=t=0:load=16>10", r.detail)
        self.assertIsNone(memplan.solve(p, algo="greedy", capacity=16).explanation)

    def test_reads_bundled_benchmark(self):
        p = memplan.read_csv(os.path.join(ROOT, "benchmarks", "minimalloc", "A.1048576.csv"))
        self.assertEqual(len(p), 154)
        r = memplan.solve(p, algo="greedy", threads=2)
        ok, errors = memplan.validate(p, r.offsets, 2**21)
        self.assertTrue(ok, errors)
        self.assertGreaterEqual(r.peak, memplan.load(p))

    def test_exact_reports_its_search_nodes(self):
        # A at its 1 MiB capacity needs a search (thousands of nodes); the structured count is
        # the one its summary prints, and a solver that counts none reports 0.
        p = memplan.read_csv(os.path.join(ROOT, "benchmarks", "minimalloc", "A.1048576.csv"))
        r = memplan.solve(p, algo="exact", threads=1, capacity=2**20)
        self.assertTrue(r.found)
        self.assertGreater(r.nodes, 0)
        self.assertIn(" nodes=%d " % r.nodes, r.detail)
        self.assertEqual(memplan.solve(p, algo="greedy").nodes, 0)

    def test_pre_placed_buffer_is_kept(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8, offset=16), memplan.Buffer("b", 0, 4, 8)])
        r = memplan.solve(p, algo="first-fit")
        self.assertEqual(r.offsets[0], 16)
        self.assertTrue(memplan.validate(p, r.offsets)[0])

    # Every field of Buffer with values the model forbids, one at a time on a valid buffer.
    BAD_FIELDS = [("id", ""), ("id", "a\nb"), ("id", "a\rb"), ("start", -1), ("end", 0),
                  ("end", -3), ("size", 0), ("size", -5), ("alignment", 0), ("alignment", 3),
                  ("alignment", -8), ("offset", -16), ("offset", 4), ("offset", 2**63 - 4),
                  ("size", 2**62), ("alignment", 2**62)]

    def test_bad_fields_raise_value_error_naming_buffer_and_field(self):
        for field, value in self.BAD_FIELDS:
            b = memplan.Buffer("x", 2, 6, 16, alignment=8)
            setattr(b, field, value)
            with self.assertRaises(ValueError, msg=f"{field}={value!r}") as ctx:
                memplan.Problem([memplan.Buffer("ok", 0, 4, 8), b])
            text = str(ctx.exception)
            self.assertIn("buffer #1", text, text)
            self.assertIn(field if field not in ("start", "end") else
                          {"start": "lower", "end": "upper"}[field], text)

    def test_buffers_are_copies_so_edits_cannot_bypass_the_check(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8), memplan.Buffer("b", 2, 6, 4)])
        for field, value in self.BAD_FIELDS:
            setattr(p.buffers[0], field, value)
        self.assertEqual((p.buffers[0].id, p.buffers[0].start, p.buffers[0].end,
                          p.buffers[0].size, p.buffers[0].alignment, p.buffers[0].offset),
                         ("a", 0, 4, 8, 1, None))

    def test_no_solver_accepts_bad_input_or_crashes(self):
        # The only editable part of a built Problem is its capacity; solve() re-checks it,
        # and bad run options are refused too, on every registered solver (auto on 2
        # threads included: bad input must be refused before any worker starts).
        good = [memplan.Buffer("a", 0, 4, 8), memplan.Buffer("b", 2, 6, 4, alignment=4)]
        for algo, _ in memplan.algorithms():
            p = memplan.Problem(good)
            p.capacity = -1
            with self.assertRaises(ValueError, msg=algo):
                memplan.solve(p, algo=algo, time_limit=0.2, threads=2)
            p.capacity = None
            for kwargs in ({"time_limit": float("nan")}, {"time_limit": -1.0},
                           {"threads": -5}, {"iterations": -1}, {"capacity": -8}, {"seed": -1}):
                args = {"algo": algo, "time_limit": 0.2, "threads": 2, **kwargs}
                with self.assertRaises(ValueError, msg=f"{algo} {kwargs}"):
                    memplan.solve(p, **args)
            r = memplan.solve(p, algo=algo, time_limit=0.2, threads=2)
            self.assertTrue(r.found, algo)
            ok, errors = memplan.validate(p, r.offsets)
            self.assertTrue(ok, f"{algo}: {errors}")
            # A plan from a problem whose buffers were edited through p.buffers stays valid
            # for p: the edits never reached it.
            p.buffers[1].alignment = 3
            p.buffers[0].end = 0
            r = memplan.solve(p, algo=algo, time_limit=0.2, threads=2)
            self.assertTrue(memplan.validate(p, r.offsets)[0], algo)

    def test_validate_and_load_recheck_the_problem(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8)])
        p.capacity = -1
        with self.assertRaises(ValueError):
            memplan.load(p)
        with self.assertRaises(ValueError):
            memplan.validate(p, [0])

    def test_algorithms_listed(self):
        names = [n for n, _ in memplan.algorithms()]
        self.assertIn("greedy", names)
        self.assertIn("first-fit", names)

    def test_memories_spill_to_the_slower_one_and_the_plan_checks(self):
        # Three 8-byte buffers live at once; sram holds two. Each may live in either memory.
        both = ["sram", "dram"]
        bufs = [memplan.Buffer(n, 0, 4, 8, spaces=both) for n in "abc"]
        p = memplan.Problem(bufs, memories=[memplan.Memory("sram", 16, 8), memplan.Memory("dram")])
        self.assertEqual([m.name for m in p.memories], both)
        r = memplan.plan_memories(p, algo="greedy", time_limit=2)
        self.assertTrue(r.found, r.error)
        self.assertEqual(sorted(r.space), ["dram", "sram", "sram"])
        self.assertLessEqual(r.peaks["sram"], 16)
        self.assertEqual(r.peaks["dram"], 8)
        for name, off in zip(r.space, r.offsets):
            self.assertEqual(off % (8 if name == "sram" else 1), 0)
        # Pinned to sram (one name): nothing fits, and the error names the memory.
        pinned = memplan.Problem([memplan.Buffer(n, 0, 4, 8, spaces=["sram"]) for n in "abc"],
                                 memories=p.memories)
        no = memplan.plan_memories(pinned, algo="greedy", time_limit=2)
        self.assertFalse(no.found)
        self.assertIn("fits none of its memories", no.error)
        with self.assertRaises(ValueError):  # a space no memory declares
            memplan.Problem([memplan.Buffer("a", 0, 4, 8, spaces=["hbm"])], memories=p.memories)
        with self.assertRaises(ValueError):  # no memories at all
            memplan.plan_memories(memplan.Problem(bufs[:1]))

    def test_swaps_evict_between_uses_and_the_plan_checks(self):
        # a is read at 0 and 9; b and c need the room in between: at capacity 8 a must go.
        p = memplan.Problem([memplan.Buffer("a", 0, 10, 4, uses=[0, 9], evictable=True),
                             memplan.Buffer("b", 2, 4, 4), memplan.Buffer("c", 3, 7, 4)])
        self.assertEqual(memplan.load(p), 12)
        r = memplan.plan_swaps(p, 8, algo="greedy", time_limit=2, bandwidth=4)
        self.assertTrue(r.found, r.explain)
        self.assertEqual(r.status, "feasible")
        self.assertLessEqual(r.peak, 8)
        self.assertEqual(len(r.evictions), 1)
        who, lo, hi = r.evictions[0]
        self.assertEqual(who, "a")
        self.assertTrue(lo <= 3 < hi, r.evictions)  # away at step 3, back by its use at 9
        self.assertLessEqual(hi, 9)
        self.assertEqual(r.transfers, [("a", "out", lo - 1, lo), ("a", "in", hi, hi + 1)])  # 4 bytes/step
        self.assertEqual(r.bytes_moved, 8)
        # Not evictable: step 3 holds 12 bytes whatever happens, proven.
        q = memplan.Problem([memplan.Buffer("a", 0, 10, 4, uses=[0, 9]), memplan.Buffer("b", 2, 4, 4),
                             memplan.Buffer("c", 3, 7, 4)])
        no = memplan.plan_swaps(q, 8, algo="greedy", time_limit=2)
        self.assertFalse(no.found)
        self.assertEqual(no.status, "infeasible")
        self.assertIn("step 3 load 12 > 8", no.explain)
        self.assertIsNone(no.offsets)
        with self.assertRaises(ValueError):
            memplan.plan_swaps(p, 8, channels=0)
        with self.assertRaises(ValueError):  # a negative seed (it was pybind11's TypeError)
            memplan.plan_swaps(p, 8, seed=-1)
        # In-place reuse (keyword) counts once: b over a is 4 bytes, not 8.
        chain = memplan.Problem([memplan.Buffer("a", 0, 2, 4), memplan.Buffer("b", 1, 3, 4, inplace_of="a")])
        self.assertEqual(memplan.solve(chain, algo="greedy", capacity=4).peak, 4)
        self.assertTrue(memplan.plan_swaps(chain, 4, algo="greedy", time_limit=2).found)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
