# stagec fixture: neg_s16_loader_passed_over_once_in_nested_fn (the script)
# named: on the command line with data_manager.py (`torchrun --nproc_per_node 8 fine_tune.py`)
# expect: none in this file
# ----
import torch
import torch.distributed as dist

from data_manager import init_data


def main():
    dist.init_process_group(backend="nccl")
    world_size, rank = dist.get_world_size(), dist.get_rank()
    encoder = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda())
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    (data_loader,
     dist_sampler) = init_data(
         dataset_name="cifar10_fine_tune",
         batch_size=64,
         world_size=world_size,
         rank=rank)

    def pass_once():
        total = 0
        for i, data in enumerate(data_loader):
            inputs, labels = data[0].cuda(), data[1].cuda()
            loss = torch.nn.functional.cross_entropy(encoder(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += inputs.shape[0]
        return total

    for epoch in range(0, 100):
        optimizer.zero_grad()
    seen = pass_once()
    print(seen)


if __name__ == "__main__":
    main()
