def train_one_epoch(model, data, epoch, args):
    data["train"].set_epoch(epoch)
    dataloader = data["train"].dataloader
    for i, batch in enumerate(dataloader):
        model(batch).sum().backward()
