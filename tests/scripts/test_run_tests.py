"""scripts/run_tests.py: the summary that ends `make test`, and a stage run for real."""
import run_tests


def test_summary_all_passed():
    lines = run_tests.summary([("unit", 0, "412 passed in 85.0s", 88.2, 170.0),
                               ("book-check", 0, "Site checks: 28 pages, 0 problems.", 41, 41)],
                              129.4)
    assert lines[0].split()[:2] == ["unit", "passed"] and "1 min 28 s" in lines[0]
    assert "412 passed" in lines[0] and "41 s" in lines[1]
    assert "1.9 cores" in lines[0] and "1.0 cores" in lines[1]  # CPU time / wall time
    assert lines[-1] == "make test passed: all 2 stages passed, in 2 min 09 s."


def test_summary_names_the_failed_stages():
    lines = run_tests.summary([("unit", 0, "ok", 1, 1), ("nbval", 2, "1 failed", 2, 2),
                               ("browser-check", 1, "3 problems", 3, 3)], 6)
    assert lines[1].split()[:2] == ["nbval", "FAILED"]
    assert lines[-1] == "make test FAILED: 2 of 3 stages failed (nbval, browser-check), in 6 s."


def test_a_stage_runs_without_xdist_noise(tmp_path, monkeypatch, capsys):
    """A stage is `make <stage>`: its output is echoed but for "bringing up nodes...", its
    exit code and last line are kept, and main() exits 1 when a stage failed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Makefile").write_text(
        "good:\n\t@echo 'bringing up nodes...'\n\t@echo '3 passed in 0.1s'\n"
        "busy:\n\t@python3 -c 'while __import__(\"time\").process_time() < 0.3: pass'\n"
        "bad:\n\t@echo 'bringing up nodes...'\n\t@echo '1 failed'; exit 3\n")
    rc, last, seconds, cpu = run_tests.run_stage("good", "make")
    out = capsys.readouterr().out
    assert (rc, last) == (0, "3 passed in 0.1s") and "bringing up" not in out
    assert run_tests.run_stage("busy", "make")[3] >= 0.3  # the CPU time of its processes
    assert run_tests.main(["good", "bad"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("make test FAILED: 1 of 2 stages failed (bad)")
    assert "bringing up nodes..." not in out
    # A failed stage's summary keeps its own last line, not make's "*** [bad] Error 3".
    assert any(line.startswith("bad") and line.endswith("1 failed") for line in out)


def test_stages_joined_by_plus_run_side_by_side_each_output_whole(tmp_path, monkeypatch, capsys):
    """ "a+b": both at once, a's output as it comes, b's after it in one piece; each stage
    keeps its own result. Each stage waits (up to 10 s) until the other has started, so
    that one run after the other fails, whatever the machine's load (a timing limit did not
    hold on a loaded 2-core machine)."""
    monkeypatch.chdir(tmp_path)
    wait = "for i in $$(seq 200); do test -e {0} && break; sleep 0.05; done; test -e {0}"
    (tmp_path / "Makefile").write_text(
        f"a:\n\t@echo a1; touch a.on; {wait.format('b.on')} && echo a2\n"
        f"b:\n\t@touch b.on; {wait.format('a.on')} && echo b1; python3 -c 'while "
        "__import__(\"time\").process_time() < 0.3: pass'; echo b2; exit 4\n")
    assert run_tests.main(["a+b"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["a1", "a2", "b1", "b2"]
    a, b = (line for line in out if line.startswith(("a ", "b ")))
    assert a.split()[:2] == ["a", "passed"] and a.endswith("a2")
    assert b.split()[:2] == ["b", "FAILED"] and b.endswith("b2")
    assert float(b.split("cores")[0].split()[-1]) > 0  # b's own CPU time, while a ran too
