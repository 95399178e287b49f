# stagec fixture: pos_s16_builder_reexported_by_its_package (training loop)
# named: on the command line with train.py and datasets/make_dataloader.py
# expect: none in this file (the loader is reported where it is built)
# ----
import torch


def do_train(model, train_loader, val_loader, optimizer, epochs):
    for epoch in range(1, epochs + 1):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for img, target in train_loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(img.cuda()), target.cuda())
            loss.backward()
            optimizer.step()


def do_inference(model, val_loader):
    model.eval()
    with torch.no_grad():
        for img, _ in val_loader:
            model(img.cuda())
