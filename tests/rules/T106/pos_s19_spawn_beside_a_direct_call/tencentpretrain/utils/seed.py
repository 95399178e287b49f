# named: on the command line (the seeding helper)
# expect:
#   T106 at 10:5 PYTHONHASHSEED is read only when Python starts …
import os
import random


def set_seed(seed=7):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
