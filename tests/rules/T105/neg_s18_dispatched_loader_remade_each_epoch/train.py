def train_one_epoch(model, data, epoch, args):
    dataloader = data
    for i, batch in enumerate(dataloader):
        model(batch).sum().backward()
