# named: on the command line (the library module the trainer imports)
# expect: nothing
import os


def save_state_stepwise(args, accelerator, step_no):
    state_dir = os.path.join(args.output_dir, "state-{:06d}".format(step_no))
    accelerator.save_state(state_dir)


def save_on_epoch_end_or_stepwise_common(args, on_epoch_end, accelerator, epoch_no, global_step, saver):
    saver(os.path.join(args.output_dir, "model-{:06d}.pt".format(epoch_no if on_epoch_end else global_step)))
    if args.save_state:
        save_state_stepwise(args, accelerator, epoch_no if on_epoch_end else global_step)


def save_model_on_epoch_end_or_stepwise(args, on_epoch_end, accelerator, epoch_no, global_step, unet):
    def saver(path):
        accelerator.save(accelerator.unwrap_model(unet).state_dict(), path)

    save_on_epoch_end_or_stepwise_common(args, on_epoch_end, accelerator, epoch_no, global_step, saver)
