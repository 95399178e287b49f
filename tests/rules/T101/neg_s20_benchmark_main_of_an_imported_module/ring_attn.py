# stagec fixture: neg_s20_benchmark_main_of_an_imported_module (the attention module)
# named: on the command line, with train.py
# ----
import torch
import torch.distributed as dist


def ring_attention(q, k, v):
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    return scores.softmax(-1) @ v


def bench(batch, n_ctx, d_head, n_repeat=10):
    q = torch.randn((batch, n_ctx, d_head), requires_grad=True)
    k = torch.randn((batch, n_ctx, d_head), requires_grad=True)
    v = torch.randn((batch, n_ctx, d_head), requires_grad=True)
    for _ in range(n_repeat):
        o = ring_attention(q, k, v)
        o.backward(torch.randn_like(o))


if __name__ == "__main__":
    dist.init_process_group("nccl")
    backward_engine = "flash"  # the benchmark's own options
    for n_ctx in [2**i for i in range(10, 14)]:
        bench(1, n_ctx, 64)
