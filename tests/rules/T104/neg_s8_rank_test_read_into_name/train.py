# stagec fixture: s8 neg_rank_test_read_into_name (issue 22, class 2; the look-alikes of
#                 pos_s8_rank_test_read_into_name)
# named: on the command line (launched with `accelerate launch`, no config)
# runtime: multi-rank: an Accelerate Accelerator
# expect: nothing
#   - the name read from `accelerator.is_main_process` guards only logging; every rank saves;
#   - a name bound to something else than the rank test (`is_main = args.main`), which
#     stagec cannot tie to a rank, guards a save: left alone.
# ----
from accelerate import Accelerator


def save_state(accelerator, path):
    accelerator.save_state(path)


class Trainer:
    def train(self, args, model, loader, opt):
        accelerator = Accelerator()
        is_main_process = accelerator.is_main_process
        is_main = args.main
        model, loader, opt = accelerator.prepare(model, loader, opt)
        for epoch in range(args.epochs):
            for batch in loader:
                accelerator.backward(model(batch).mean())
            if is_main_process:
                print("saving", epoch)
            save_state(accelerator, "x")
            if is_main:
                save_state(accelerator, "y")
