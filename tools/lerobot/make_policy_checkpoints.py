"""Small LeRobot policy checkpoints for the LeRobot policy bridge's checks (python/kosmos_serve,
docs/remote-policies.md "LeRobot policies"): ACT and Diffusion Policy made by LeRobot itself from
their configs, at random initialisation (seeded) and small sizes, with the input and output
features and normalization statistics of a LeRobot dataset (by default the PushT fixture that
LeRobot recorded from gym-pusht), saved with LeRobot's own `save_pretrained` and its processors'
`save_pretrained`, as a training run would leave them. Nothing is downloaded (no pretrained
backbone weights).

    .lerobot/venv/bin/python tools/lerobot/make_policy_checkpoints.py OUT_DIR \
        [--dataset tests/fixtures/lerobot/pusht-h264] [--seed 7]

writes OUT_DIR/act and OUT_DIR/diffusion.
"""

import argparse
from pathlib import Path

import torch
from lerobot.configs.types import FeatureType
from lerobot.datasets.lerobot_dataset import LeRobotDatasetMetadata
from lerobot.datasets.utils import dataset_to_policy_features
from lerobot.policies.act.configuration_act import ACTConfig
from lerobot.policies.diffusion.configuration_diffusion import DiffusionConfig
from lerobot.policies.factory import get_policy_class, make_pre_post_processors

HERE = Path(__file__).resolve().parents[2]


def small_configs():
    return {
        "act": ACTConfig(chunk_size=10, n_action_steps=10, dim_model=64, n_heads=4,
                         dim_feedforward=128, n_encoder_layers=1, n_decoder_layers=1,
                         n_vae_encoder_layers=1, latent_dim=8, pretrained_backbone_weights=None,
                         device="cpu"),
        "diffusion": DiffusionConfig(horizon=16, n_action_steps=8, n_obs_steps=2,
                                     down_dims=(32, 64), diffusion_step_embed_dim=32,
                                     num_train_timesteps=20, num_inference_steps=5,
                                     crop_shape=None, spatial_softmax_num_keypoints=16,
                                     pretrained_backbone_weights=None, use_group_norm=True,
                                     device="cpu"),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--dataset", default=str(HERE / "tests/fixtures/lerobot/pusht-h264"))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    meta = LeRobotDatasetMetadata("kosmos/checkpoint-source", root=args.dataset)
    features = dataset_to_policy_features(meta.features)
    outputs = {k: f for k, f in features.items() if f.type is FeatureType.ACTION}
    inputs = {k: f for k, f in features.items() if k not in outputs}
    for name, config in small_configs().items():
        torch.manual_seed(args.seed)
        config.input_features, config.output_features = inputs, outputs
        policy = get_policy_class(name)(config)
        pre, post = make_pre_post_processors(config, dataset_stats=meta.stats)
        folder = Path(args.out) / name
        policy.save_pretrained(folder)
        pre.save_pretrained(folder)
        post.save_pretrained(folder)
        params = sum(p.numel() for p in policy.parameters())
        print(f"{folder}: {name}, {params} parameters, inputs {sorted(inputs)}, "
              f"outputs {sorted(outputs)}")


if __name__ == "__main__":
    main()
