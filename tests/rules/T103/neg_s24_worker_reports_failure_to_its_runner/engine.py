# stagec fixture: s24 neg_worker_reports_failure_to_its_runner (issue 22, class 6; review 31a's
#                 allenact: a training worker process catches every error of its whole run,
#                 logs it, and in `finally` tells the runner that started it through a results
#                 queue; the runner then ends every worker, so no rank is left waiting)
# named: on the command line (the runner starts one worker process per GPU)
# expect: nothing
# ----
import logging
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


class TrainEngine:
    def __init__(self, worker_id, world_size, results_queue):
        self.worker_id = worker_id
        self.results_queue = results_queue
        dist.init_process_group("nccl", rank=worker_id, world_size=world_size)
        self.model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 2).cuda())

    def run_pipeline(self):
        opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        for step in range(1000):
            loss = self.model(torch.randn(4, 8).cuda()).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            dist.barrier()

    def train(self):
        completed = False
        try:
            self.run_pipeline()
            completed = True
        except KeyboardInterrupt:
            logging.info("worker %d interrupted", self.worker_id)
        except Exception:
            logging.error("worker %d failed, exiting", self.worker_id)
            logging.error(traceback.format_exc())
        finally:
            if completed:
                self.results_queue.put(("train_stopped", 0))
            else:
                self.results_queue.put(("train_stopped", 1 + self.worker_id))


def worker(worker_id, world_size, queue):
    TrainEngine(worker_id, world_size, queue).train()


if __name__ == "__main__":
    n = torch.cuda.device_count()
    queue = mp.get_context("spawn").Queue()
    mp.spawn(worker, args=(n, queue), nprocs=n)
