"""The command line: `python -m autograd train|sweep` run as subprocesses, plus in-process calls of
autograd.cli.main (fast, and they count towards coverage, which subprocesses do not)."""

import math
import os
import re
import runpy
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from autograd import Value, cli
from autograd.nn import MLP

ROOT = Path(__file__).resolve().parent.parent
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
STEP_LINE = re.compile(r"^step\s+(\d+)\s+loss\s+(\d+\.\d+)\s+accuracy\s+(\d\.\d{3})$")
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}


def run(*args, code=None, timeout=300, cwd=None):
    """`python -m autograd ARGS` (or `python -c CODE ARGS`) in a fresh interpreter."""
    command = [sys.executable, *(["-c", code] if code else ["-m", "autograd"]), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=ENV, cwd=cwd)


def step_lines(stdout):
    return [(int(m[1]), float(m[2]), float(m[3])) for m in map(STEP_LINE.match, stdout.splitlines()) if m]


def sweep_rows(stdout):
    """{N: (w, dy/dx, w**N)} from the sweep table."""
    rows = {}
    for line in stdout.splitlines():
        fields = line.split()
        if fields and fields[0].isdigit():
            n, w, _forward, _backward, dydx, analytic, _relerr = fields
            rows[int(n)] = (float(w), float(dydx), float(analytic))
    return rows


def assert_one_line_error(done, code, *words):
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], f"{word!r} missing from {lines[0]!r}"
    return lines[0]


# ---------------------------------------------------------------------- train (one real run, shared)
@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The default training run, once: about 10 s; --plot does not change the training."""
    png = tmp_path_factory.mktemp("train") / "moons.png"
    return run("train", "--plot", str(png)), png


@pytest.mark.slow
def test_train_reaches_full_accuracy_with_the_defaults(trained):
    done, _ = trained
    assert done.returncode == 0, done.stderr
    steps = step_lines(done.stdout)
    assert [s for s, _, _ in steps] == [*range(0, 150, 10), 149]  # progress every 10 steps, and the last
    assert steps[-1][2] == 1.0  # accuracy 1.000 at the end
    assert steps[-1][1] < steps[0][1] / 10  # the loss fell a lot
    assert "337 parameters" in done.stdout.splitlines()[0]  # MLP(2, [16, 16, 1])
    assert re.search(r"^done in [\d.]+ s: loss [\d.]+, accuracy 1\.000$", done.stdout, re.M)


@pytest.mark.slow
def test_train_plot_writes_a_png(trained):
    done, png = trained
    data = png.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (600, 450)  # 6 x 4.5 inches at 100 dpi
    assert f"wrote {png}" in done.stdout


# Block the import the way a missing package would, then run the real entry point.
WITHOUT_MATPLOTLIB = (
    "import runpy, sys; sys.modules['matplotlib'] = None; sys.argv[0] = 'autograd'; "
    "runpy.run_module('autograd', run_name='__main__', alter_sys=True)"
)


def test_plot_without_matplotlib_is_one_clear_line(tmp_path):
    done = run("train", "--plot", "moons.png", code=WITHOUT_MATPLOTLIB, cwd=tmp_path)
    assert_one_line_error(done, 1, "matplotlib", "pip install")
    assert done.stdout == ""  # it stopped before training, not after
    assert not (tmp_path / "moons.png").exists()


def test_a_missing_plot_folder_is_a_usage_error_whether_or_not_matplotlib_is_installed():
    # The folder is checked first, so the exit status does not depend on what is installed.
    done = run("train", "--plot", "/no-such-folder-autograd/moons.png", code=WITHOUT_MATPLOTLIB)
    line = assert_one_line_error(done, 2, "error", "--plot", "no such directory")
    assert "matplotlib" not in line and done.stdout == ""


# ---------------------------------------------------------------------- sweep
def test_sweep_default_sizes_match_the_analytic_gradient():
    done = run("sweep")
    assert done.returncode == 0, done.stderr
    rows = sweep_rows(done.stdout)
    assert sorted(rows) == [100, 1000, 5000, 20000]
    for n, (w, dydx, analytic) in rows.items():
        assert w == 1.001
        assert dydx == pytest.approx(1.001**n, rel=1e-9)
        assert analytic == pytest.approx(1.001**n, rel=1e-11)


@pytest.mark.slow
def test_sweep_a_million():
    done = run("sweep", "1000000")
    assert done.returncode == 0, done.stderr
    ((n, (w, dydx, _)),) = sweep_rows(done.stdout).items()
    assert n == 1_000_000
    # 1.001**N overflows a float here, so the documented fallback w = 1 + 1/N is used
    assert w == pytest.approx(1 + 1 / n, rel=1e-12)
    assert dydx == pytest.approx((1 + 1 / n) ** n, rel=1e-9)
    assert dydx == pytest.approx(math.e * (1 - 1 / (2 * n)), rel=1e-9)  # (1 + 1/n)^n -> e


def test_sweep_with_a_chosen_w():
    done = run("sweep", "--w", "1.5", "50", "7")
    assert done.returncode == 0, done.stderr
    rows = sweep_rows(done.stdout)
    assert list(rows) == [50, 7]
    assert rows[50][1] == pytest.approx(1.5**50, rel=1e-9)
    assert rows[7][1] == pytest.approx(17.0859375, rel=1e-12)  # 1.5^7 = 2187/128


def test_sweep_overflow_is_one_line():
    line = assert_one_line_error(run("sweep", "--w", "2", "2000"), 1, "sweep", "--w")
    assert "overflow" in line.lower() or "too large" in line


# ---------------------------------------------------------------------- help and bad arguments
@pytest.mark.parametrize(
    "args, words",
    [
        (["--help"], ["train", "sweep", "newton"]),
        (["train", "--help"], ["--steps", "--lr", "--hidden", "--seed", "--plot", "--nonlin", "default"]),
        (["sweep", "--help"], ["N", "--w", "100 1000 5000 20000"]),
    ],
)
def test_help(args, words):
    done = run(*args)
    assert done.returncode == 0 and done.stderr == ""
    for word in words:
        assert word in done.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        ([], ["command"]),
        (["bogus"], ["'bogus'"]),
        (["train", "--steps", "0"], ["--steps", "'0'"]),
        (["train", "--steps", "many"], ["--steps", "'many'"]),
        (["train", "--lr", "-1"], ["--lr", "'-1'"]),
        (["train", "--lr", "nan"], ["--lr", "'nan'"]),
        (["train", "--hidden", "4,0"], ["--hidden", "'0'"]),
        (["train", "--hidden", "4,x"], ["--hidden", "'x'"]),
        (["train", "--nonlin", "sigmoid"], ["--nonlin", "'sigmoid'"]),
        (["train", "--seed", "1.5"], ["--seed", "'1.5'"]),
        (["train", "--every", "-3"], ["--every", "'-3'"]),
        (["train", "--bogus"], ["--bogus"]),
        (["train", "--plot"], ["--plot"]),
        (["train", "--plot", "/no-such-folder-autograd/moons.png"], ["--plot", "no such directory"]),
        (["sweep", "0"], ["N", "'0'"]),
        (["sweep", "ten"], ["N", "'ten'"]),
        (["sweep", "--w", "0"], ["--w", "'0'"]),
        (["sweep", "--w", "inf"], ["--w", "'inf'"]),
    ],
)
def test_bad_arguments_are_one_line_exit_2(args, words):
    done = run(*args)
    line = assert_one_line_error(done, 2, "error", *words)
    assert line.startswith("python -m autograd")
    assert done.stdout == ""


# ---------------------------------------------------------------------- in process (coverage)
def test_main_sweep_in_process(capsys):
    assert cli.main(["sweep", "10", "30"]) == 0
    rows = sweep_rows(capsys.readouterr().out)
    assert rows[30][1] == pytest.approx(1.001**30, rel=1e-9)


def test_main_sweep_overflow_in_process(capsys):
    assert cli.main(["sweep", "--w", "2", "2000"]) == 1
    assert "choose a smaller --w" in capsys.readouterr().err


def test_main_train_in_process(capsys):
    assert cli.main(["train", "--steps", "3", "--every", "1", "--hidden", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert [s for s, _, _ in step_lines(out)] == [0, 1, 2]
    assert "MLP(2, [4, 1])" in out and "17 parameters" in out  # (2+1)*4 + (4+1)*1


def test_main_train_with_plot_in_process(tmp_path, capsys):
    png = tmp_path / "small.png"
    assert cli.main(["train", "--steps", "1", "--hidden", "2", "--nonlin", "relu", "--plot", str(png)]) == 0
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert f"wrote {png}" in capsys.readouterr().out


def test_main_without_matplotlib_in_process(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now raises ImportError
    png = tmp_path / "never.png"
    with pytest.raises(SystemExit) as info:
        cli.main(["train", "--plot", str(png)])
    assert "matplotlib" in str(info.value.code) and "\n" not in str(info.value.code)
    assert capsys.readouterr().out == "" and not png.exists()


@pytest.mark.parametrize(
    "args",
    [["train", "--steps", "-1"], ["train", "--steps", "x"], ["train", "--lr", "x"], ["train", "--lr", "0"]],
)
def test_main_bad_argument_in_process(args, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and repr(args[-1]) in err


def test_diverging_training_is_one_line(capsys):
    assert cli.main(["train", "--steps", "3", "--hidden", "2", "--lr", "1e300"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "diverged" in err and "--lr" in err


def test_unwritable_plot_path_is_one_line(tmp_path, capsys):
    folder = tmp_path / "taken.png"
    folder.mkdir()  # a folder where the PNG should go: the write fails after training
    assert cli.main(["train", "--steps", "1", "--hidden", "2", "--plot", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err and str(folder) in err


def test_plot_into_a_missing_folder_fails_before_training(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["train", "--plot", str(tmp_path / "missing" / "moons.png")])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "no such directory" in err


def test_module_entry_point_in_process(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["autograd", "sweep", "5"])
    with pytest.raises(SystemExit) as info:
        runpy.run_module("autograd", run_name="__main__")
    assert info.value.code == 0
    assert sweep_rows(capsys.readouterr().out)[5][1] == pytest.approx(1.001**5, rel=1e-9)


def test_moons_loss_by_hand():
    model = MLP(2, [1], seed=0)  # one linear neuron: score = b + w0 x + w1 y
    (neuron,) = model.layers[0].neurons
    neuron.w[0].data, neuron.w[1].data, neuron.b.data = 0.5, -2.0, 0.25
    points, labels = [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]], [1, -1, 1]
    scores = [0.75, -1.75, -2.75]
    hinge = [max(0.0, 1 - y * s) for y, s in zip(labels, scores, strict=True)]  # 0.25, 0, 3.75
    expected = sum(hinge) / 3 + 1e-4 * (0.5**2 + 2.0**2 + 0.25**2)
    loss, accuracy = cli.moons_loss(model, points, labels)
    assert isinstance(loss, Value)
    assert loss.data == pytest.approx(expected, rel=1e-14)
    assert accuracy == pytest.approx(2 / 3)


def test_train_function_returns_the_final_loss_and_accuracy(capsys):
    model, loss, accuracy = cli.train(steps=3, lr=0.5, hidden=[3], seed=2, nonlin="tanh", every=5)
    out = capsys.readouterr().out
    steps = step_lines(out)
    assert [s for s, _, _ in steps] == [0, 2]  # every 5th step, and the last
    assert steps[-1][1:] == (round(loss, 4), round(accuracy, 3))
    assert len(model.parameters()) == (2 + 1) * 3 + (3 + 1)


# ---------------------------------------------------------------------- newton
NEWTON_ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(\S+)\s+(-?\d+\.\d{8})\s+(-?\d+\.\d{8})$")


def newton_tables(stdout):
    """The two tables of `newton` as lists of (step, loss, |grad|, x, y), and their last lines."""
    tables, verdicts = [], []
    for line in stdout.splitlines():
        if line.startswith(("Newton's method", "gradient descent")):
            tables.append([])
        elif m := NEWTON_ROW.match(line):
            tables[-1].append((int(m[1]), float(m[2]), float(m[3]), float(m[4]), float(m[5])))
        elif line.startswith(("reached", "stopped")):
            verdicts.append(line)
    return tables, verdicts


def rosenbrock_by_hand(x, y):
    """f, its gradient and its Hessian, differentiated by hand."""
    f = (1 - x) ** 2 + 100 * (y - x * x) ** 2
    g = (-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x))
    h = ((2 - 400 * y + 1200 * x * x, -400 * x), (-400 * x, 200.0))
    return f, g, h


def newton_by_hand(x, y, steps):
    rows = []
    for step in range(steps):
        f, (gx, gy), ((a, b), (c, d)) = rosenbrock_by_hand(x, y)
        rows.append((step, f, math.hypot(gx, gy), x, y))
        det = a * d - b * c
        x, y = x - (d * gx - b * gy) / det, y - (a * gy - c * gx) / det
    return rows


def descent_by_hand(x, y, lr, tol, max_steps):
    for step in range(max_steps + 1):
        _, (gx, gy), _ = rosenbrock_by_hand(x, y)
        if math.hypot(gx, gy) < tol or step == max_steps:
            break
        x, y = x - lr * gx, y - lr * gy
    return step, x, y


def assert_rows_match(printed, expected):
    for (step, loss, norm, x, y), (step0, loss0, norm0, x0, y0) in zip(printed, expected, strict=True):
        assert step == step0
        assert loss == pytest.approx(loss0, rel=1e-6, abs=1e-30)
        assert norm == pytest.approx(norm0, rel=1e-3, abs=1e-30)
        assert (x, y) == (pytest.approx(x0, abs=1e-8), pytest.approx(y0, abs=1e-8))


def test_newton_converges_in_a_handful_of_steps_where_gradient_descent_needs_tens_of_thousands():
    done = run("newton")
    assert done.returncode == 0, done.stderr
    (by_newton, by_descent), (newton_verdict, descent_verdict) = newton_tables(done.stdout)
    assert len(by_newton) == 7  # steps 0..6
    assert_rows_match(by_newton, newton_by_hand(-1.2, 1.0, 7))
    assert by_newton[-1][2] < 1e-8 and re.match(r"reached \|grad\| < 1e-08 in 6 steps", newton_verdict)
    # gradient descent: the first steps by hand, then where it stops
    steps = [row[0] for row in by_descent]
    assert steps[:8] == [0, 1, 2, 3, 10, 100, 1000, 10000]
    hand = [(s, *descent_by_hand(-1.2, 1.0, 0.001, 0.0, s)) for s in steps[:8]]
    assert [(row[3], row[4]) for row in by_descent[:8]] == [
        (pytest.approx(x, abs=1e-8), pytest.approx(y, abs=1e-8)) for _, _, x, y in hand
    ]
    last_step, x, y = descent_by_hand(-1.2, 1.0, 0.001, 1e-8, 50_000)
    assert 10_000 < last_step < 50_000
    assert abs(steps[-1] - last_step) <= 2  # rounding differs between the engine and the formula
    assert by_descent[-1][3:] == (pytest.approx(x, abs=1e-7), pytest.approx(y, abs=1e-7))
    assert descent_verdict.startswith(f"reached |grad| < 1e-08 in {steps[-1]} steps")


def test_newton_plot_writes_a_png(tmp_path, capsys):
    png = tmp_path / "newton.png"
    assert cli.main(["newton", "--gd-steps", "30", "--plot", str(png)]) == 0
    data = png.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert struct.unpack(">II", data[16:24]) == (1100, 450)  # 11 x 4.5 inches at 100 dpi
    out = capsys.readouterr().out
    assert f"wrote {png}" in out
    (_, by_descent), (_, descent_verdict) = newton_tables(out)
    assert [row[0] for row in by_descent] == [0, 1, 2, 3, 10, 30]  # and the last one
    assert descent_verdict.startswith("stopped after 30 steps")


def test_newton_in_process_with_options(capsys):
    args = ["newton", "--start", "0.5,0.5", "--lr", "0.002", "--gd-steps", "5", "--tol", "1e-6"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    (by_newton, by_descent), _ = newton_tables(out)
    assert "from (0.5, 0.5)" in out
    assert_rows_match(by_newton, newton_by_hand(0.5, 0.5, len(by_newton)))
    assert by_newton[-1][2] < 1e-6 and by_newton[-2][2] >= 1e-6
    assert [row[0] for row in by_descent] == [0, 1, 2, 3, 5]
    _, x, y = descent_by_hand(0.5, 0.5, 0.002, 0.0, 5)
    assert by_descent[-1][3:] == (pytest.approx(x, abs=1e-8), pytest.approx(y, abs=1e-8))


def test_newton_stops_at_its_step_limit():
    rows = cli.newton((-1.2, 1.0), tol=1e-30, max_steps=3)
    assert [r[0] for r in rows] == [0, 1, 2, 3]
    assert_rows_match([(s, f, n, *p) for s, f, n, p in rows], newton_by_hand(-1.2, 1.0, 4))


def test_newton_with_a_singular_hessian_is_one_line(capsys):
    # det H = 80000 (x^2 - y) + 400 vanishes on y = x^2 + 0.005
    assert cli.main(["newton", "--start", "0,0.005"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "singular" in err and "--start" in err


def test_newton_diverging_descent_is_one_line(capsys):
    assert cli.main(["newton", "--lr", "1", "--gd-steps", "100"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "diverged" in err and "--lr" in err


def test_newton_plot_errors(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "taken.png"
    folder.mkdir()
    assert cli.main(["newton", "--gd-steps", "2", "--plot", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "newton: cannot write" in err
    with pytest.raises(SystemExit) as info:
        cli.main(["newton", "--plot", str(tmp_path / "missing" / "n.png")])
    assert info.value.code == 2 and "no such directory" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SystemExit) as info:
        cli.main(["newton", "--plot", str(tmp_path / "n.png")])
    assert str(info.value.code).startswith("newton: --plot needs matplotlib")
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "args, words",
    [
        (["newton", "--start", "1"], ["--start", "'1'"]),
        (["newton", "--start", "1,2,3"], ["--start", "'1,2,3'"]),
        (["newton", "--start", "a,b"], ["--start", "'a,b'"]),
        (["newton", "--start", "nan,1"], ["--start", "'nan,1'", "finite"]),
        (["newton", "--lr", "0"], ["--lr", "'0'"]),
        (["newton", "--gd-steps", "0"], ["--gd-steps", "'0'"]),
        (["newton", "--tol", "-1"], ["--tol", "'-1'"]),
        (["newton", "--bogus"], ["--bogus"]),
    ],
)
def test_newton_bad_arguments_are_one_line_exit_2(args, words, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "error" in err
    for word in words:
        assert word in err


def test_newton_help():
    done = run("newton", "--help")
    assert done.returncode == 0 and done.stderr == ""
    for word in ("--start", "--lr", "--gd-steps", "--tol", "--plot", "Rosenbrock", "hessian"):
        assert word in done.stdout


def test_solve_by_hand():
    # 2a + b = 4, a + 3b + c = 10, b + 4c = 14  ->  a = 1, b = 2, c = 3
    assert cli.solve([[2, 1, 0], [1, 3, 1], [0, 1, 4]], [4, 10, 14]) == pytest.approx([1, 2, 3])
    # a zero in the first pivot position needs a row swap
    assert cli.solve([[0, 2], [3, 1]], [4, 5]) == pytest.approx([1, 2])
    with pytest.raises(ZeroDivisionError, match="singular"):
        cli.solve([[1, 2], [2, 4]], [1, 2])
