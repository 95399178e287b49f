# stagec fixture: s34 pos_config_dict_count_shared_over_node (the configurations)
# named: with train.py
# expect: none in this file
# ----
configurations = {
    1: dict(
        SEED=1337,
        DATA_ROOT="/data/faces",
        BATCH_SIZE=512,
        NUM_EPOCH=24,
        NUM_WORKERS=5,
        DIST_URL="tcp://localhost:23456",
    ),
}
