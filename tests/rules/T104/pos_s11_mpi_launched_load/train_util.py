# stagec fixture: s11 pos_mpi_launched_load (issue 22, class 2; guided-diffusion's shape: the
#                 ranks are MPI's, set up from MPI.COMM_WORLD, and the checkpoint loader
#                 broadcasts over MPI but is called on rank 0 only)
# named: on the command line with dist_util.py
# runtime: multi-rank (mpiexec; setup_dist sets RANK from MPI.COMM_WORLD)
# expect:
#   T104 at 27:21 `dist_util.load_state_dict(…)` runs `MPI.COMM_WORLD.bcast`, but only rank 0
#        calls it: the other ranks, which are MPI's, never join the broadcast.
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
