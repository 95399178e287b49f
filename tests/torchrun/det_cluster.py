"""Runs Determined's launcher as a trial container would, outside a cluster.

Usage: det_cluster.py SLOTS ALLOCATION_ID LAUNCHER_ARG...

`python3 -m determined.launch.torch_distributed` starts with
`det.get_cluster_info()` and stops ("must be run on-cluster") when it is
None. On a cluster that object is read from files the agent writes into the
container (/run/determined/info/cluster.json and rendezvous.json, fixed paths
with no variable to move them). This script builds the same object for one
container with SLOTS slots on this host and sets it where
`get_cluster_info()` looks first, then runs the launcher module unchanged as
`__main__` with LAUNCHER_ARG... as its arguments. Everything the launcher
starts (determined.exec.pid_server, torch.distributed.run,
determined.exec.pid_client, determined.launch.wrap_rank and the command) is
the real thing; none of them reads the cluster info.
"""

import runpy
import sys

import determined as det
from determined import _info

slots = int(sys.argv[1])
allocation_id = sys.argv[2]

_info._info = det.ClusterInfo(
    master_url="http://127.0.0.1:8080",
    cluster_id="stagec-test",
    agent_id="stagec-test-agent",
    slot_ids=list(range(slots)),
    task_id="stagec-test-trial",
    allocation_id=allocation_id,
    session_token="unused",
    task_type="TRIAL",
    rendezvous_info=det.RendezvousInfo(
        container_addrs=["127.0.0.1"],
        container_rank=0,
        container_slot_counts=[slots],
    ),
)

sys.argv = ["determined.launch.torch_distributed"] + sys.argv[3:]
runpy.run_module("determined.launch.torch_distributed", run_name="__main__", alter_sys=True)
