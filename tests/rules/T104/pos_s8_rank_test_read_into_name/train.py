# stagec fixture: s8 pos_rank_test_read_into_name (issue 22, class 2; review 12a's M22 and M23,
#                 as kohya-ss/sd-scripts reads `is_main_process = accelerator.is_main_process`
#                 once and tests the name)
# named: on the command line (launched with `accelerate launch`, no config)
# runtime: multi-rank: an Accelerate Accelerator
# expect:
#   T104 at 30:21 `save_state(accelerator, …)` reaches `accelerator.save_state`, a collective
#        under DeepSpeed or FSDP, only where the name read from `accelerator.is_main_process`
#        holds: the other ranks never join it.
#   T104 at 32:13 the same after the loop, with a flag beside the rank test.
# ----
from accelerate import Accelerator


def save_state(accelerator, path):
    accelerator.save_state(path)


class Trainer:
    def train(self, args, model, loader, opt):
        accelerator = Accelerator()
        is_main_process = accelerator.is_main_process
        model, loader, opt = accelerator.prepare(model, loader, opt)
        for epoch in range(args.epochs):
            for batch in loader:
                accelerator.backward(model(batch).mean())
            saving = (epoch + 1) % args.every == 0
            if is_main_process and saving:
                if args.save_state:
                    save_state(accelerator, "x")
        if is_main_process and args.save_state:
            save_state(accelerator, "y")
