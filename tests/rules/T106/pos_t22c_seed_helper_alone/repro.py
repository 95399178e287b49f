# stagec fixture: t22c_pos_seed_helper_alone
# named: on the command line (a helper module changed on its own, as pre-commit passes it)
# context: no experiment config; the module seeds every library, records the git commit with
#          `git rev-parse` / `git describe` and can fetch data with a bash script. Neither starts
#          Python. `run_tool` starts an unknown command, but no code that seeds calls it.
# expect:
#   T106 at 48:5 PYTHONHASHSEED assigned inside seed_everything, after this interpreter has
#        started: string hashing stays random in this process and in every rank that calls it.
# ----
import os
import random
import subprocess

import numpy as np
import torch


def commit_id() -> str:
    try:
        out = subprocess.check_output(["git", "rev-parse", "HEAD"], text=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.strip()


def describe(path: str) -> str:
    return subprocess.check_output(f"git -C {path} describe --always", shell=True, text=True).strip()


def fetch(spec: str) -> None:
    if spec.startswith("bash "):
        subprocess.run(spec, shell=True, check=True)
    os.system("tar xf data.tar")


def run_tool(command: str) -> int:
    # An export helper nothing here calls with the seed set: its command is unknown, but it is
    # not started by the code that assigns the variable.
    return subprocess.run(command.split(), check=False).returncode


def seed_everything(seed: int, strict: bool = False) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if strict:
        torch.backends.cudnn.deterministic = True
    os.environ["PYTHONHASHSEED"] = str(seed)
