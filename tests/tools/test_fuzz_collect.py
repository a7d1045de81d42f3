"""The collector's upload fuzz harness (tests/tools/fuzz_collect.py) for a
bounded number of cases on fixed seeds: mutated results files through the
loader, mutated requests through the HTTP server."""
import fuzz_collect


def test_fuzz_collect_upload_reader_and_server_hold_on_fixed_seeds():
    for seed in (1, 2, 3):
        assert fuzz_collect.fuzz(seed, iterations=250) == 250
