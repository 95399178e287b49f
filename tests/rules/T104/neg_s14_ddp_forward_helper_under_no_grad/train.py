# stagec fixture: neg_s14_ddp_forward_helper_under_no_grad (KAIR's and BasicSR's model classes)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group; the model class wraps a network with BatchNorm in DDP)
# context: the test pass that only rank 0 runs calls the forward helper under no_grad: DDP
#          then broadcasts the buffers at most once and skips rank 0's next broadcast, which
#          pairs with the other ranks' next training step. No hang stagec can be sure of.
# expect: none
# ----
import torch
import torch.distributed as dist

from models.restorer import RestorerModel


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    opt = {"dist": True}
    model = RestorerModel(opt)
    data = [{"low": torch.randn(4, 3, 32, 32), "high": torch.randn(4, 3, 32, 32)} for _ in range(8)]
    for step, batch in enumerate(data):
        model.feed(batch)
        model.optimize()
        if step % 4 == 0 and rank == 0:
            psnr = 0.0
            for test_batch in data[:2]:
                model.feed(test_batch)
                model.test()
                psnr += float((model.out - model.high).square().mean())
            print(psnr)


if __name__ == "__main__":
    main()
