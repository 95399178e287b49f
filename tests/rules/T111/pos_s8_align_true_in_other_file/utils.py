# stagec fixture: s8 pos_align_true_in_other_file (issue 22; review 12b's so-vits-svc, where a
#                 volume envelope is resampled in utils.py and the vocoder's F0 in its own package)
# named: on the command line, with vocoder.py
# runtime: any
# expect:
#   T111 at 16:12 the implicit default, reported as information only: the call that passes
#        align_corners=True is in another file (the vocoder), which says nothing of this
#        envelope's grid (the snapshot shows the severity)
# ----
import torch
import torch.nn.functional as F


def change_rms(data1, data2):
    rms1 = torch.as_tensor(data1).to(data2.device)
    rms1 = F.interpolate(
        rms1.unsqueeze(0), size=data2.shape[0], mode="linear"
    ).squeeze()
    return data2 * rms1
