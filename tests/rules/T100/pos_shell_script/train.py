# stagec fixture: t100_pos_shell_script (never read: the entrypoint is a shell script)
# expect: no finding.
# ----
import torch

loader = torch.utils.data.DataLoader(range(10), shuffle=True, num_workers=16)
