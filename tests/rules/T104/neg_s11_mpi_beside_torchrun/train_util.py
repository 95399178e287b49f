# stagec fixture: s11 neg_mpi_beside_torchrun (issue 22, class 2; MDT as it is: guided-diffusion's
#                 MPI checkpoint loader kept, but the process group started from torchrun's
#                 environment alone)
# named: on the command line with dist_util.py
# runtime: multi-rank (torchrun; init_process_group(init_method="env://") with no MPI beside it)
# expect: nothing
#   - `dist_util.load_state_dict(…)` broadcasts over MPI on rank 0 only, but no mpiexec starts
#     the ranks: each is an MPI world of its own (`MPI.COMM_WORLD.Get_rank()` is 0, the size 1),
#     so the broadcast returns at once; rank 0 loads and `sync_params` broadcasts to the others.
# ----
import torch.distributed as dist

import dist_util


class TrainLoop:
    def __init__(self, model, resume_checkpoint):
        dist_util.setup_dist()
        self.model = model
        self.resume_checkpoint = resume_checkpoint
        self._load_and_sync_parameters()

    def _load_and_sync_parameters(self):
        if self.resume_checkpoint:
            if dist.get_rank() == 0:
                print(f"loading model from checkpoint: {self.resume_checkpoint}...")
                self.model.load_state_dict(
                    dist_util.load_state_dict(self.resume_checkpoint, map_location="cpu")
                )
        dist_util.sync_params(self.model.parameters())
