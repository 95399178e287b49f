# stagec fixture: neg_s22_closure_collectives_run_by_optimizer (issue 22, class 2; mace's L-BFGS step:
#   rank 0 runs `optimizer.step(closure)`, and each evaluation of the closure broadcasts a signal
#   that the other ranks wait for in a loop, then run the closure themselves; how often the
#   optimizer calls the closure is the optimizer's, and the protocol pairs the broadcasts)
# named: on the command line (a torchrun script)
# expect: nothing
# ----
import torch
import torch.distributed as dist


def take_step_lbfgs(model, loss_fn, data_loader, optimizer, device, rank):
    signal = torch.zeros(1, device=device)

    def closure():
        if rank == 0:
            signal.fill_(1)
            dist.broadcast(signal, src=0)
        for param in model.parameters():
            dist.broadcast(param.data, src=0)
        optimizer.zero_grad(set_to_none=True)
        total_loss = torch.tensor(0.0, device=device)
        for x, y in data_loader:
            batch_loss = loss_fn(model(x.to(device)), y.to(device))
            batch_loss.backward()
            total_loss += batch_loss
        dist.all_reduce(total_loss)
        return total_loss

    if rank == 0:
        loss = optimizer.step(closure)
        signal.fill_(0)
        dist.broadcast(signal, src=0)
    else:
        while True:
            dist.broadcast(signal, src=0)
            if signal.item() == 0:
                break
            if signal.item() == 1:
                loss = closure()
    for param in model.parameters():
        dist.broadcast(param.data, src=0)
    return loss


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    model = torch.nn.Linear(8, 1).cuda()
    optimizer = torch.optim.LBFGS(model.parameters())
    data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(4)]
    for _ in range(10):
        take_step_lbfgs(model, torch.nn.functional.mse_loss, data, optimizer, "cuda", rank)


if __name__ == "__main__":
    main()
