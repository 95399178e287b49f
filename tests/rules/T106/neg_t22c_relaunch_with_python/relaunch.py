# stagec fixture: t22c_neg_relaunch_with_python
# named: on the command line
# context: no experiment config; a launcher that fixes the hash seed and then starts the
#          training interpreters itself (`sys.executable -m torch.distributed.run`), and a
#          second path that re-executes itself under the fixed seed.
#          A third path seeds through a helper and starts the interpreters from its caller.
# expect: none. Both child interpreters read PYTHONHASHSEED at their start-up: the assignment
#         is meant for them and works. The `git` call is not what makes it silent.
# ----
import os
import subprocess
import sys


def git_describe() -> str:
    return subprocess.check_output(["git", "describe", "--always"], text=True).strip()


def launch(nproc: int, script: str, seed: int) -> int:
    os.environ["PYTHONHASHSEED"] = str(seed)
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={nproc}", script]
    return subprocess.run(cmd, check=False).returncode


def reexec_with_fixed_hash() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)


def fix_hash(seed: int) -> None:
    os.environ["PYTHONHASHSEED"] = str(seed)


def launch_seeded(nproc: int, script: str) -> int:
    fix_hash(1)
    return subprocess.call([sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={nproc}", script])
