"""Two small made-up paper lists, an older one (2021-2022, AlphaConf) and a newer one
(2023-2024, BetaConf), for comparisons and trends (the ``toy_folders`` fixture builds them)."""

from __future__ import annotations

import json
from pathlib import Path

OLD = [
    ("AlphaConf", 2021, "We propose ZorbNet, a graph neural network for node classification. ZorbNet uses "
                        "reinforcement learning and is evaluated on Cora."),
    ("AlphaConf", 2021, "We introduce QuillFormer, a transformer for machine translation trained with "
                        "reinforcement learning. QuillFormer is evaluated on WMT14."),
    ("AlphaConf", 2022, "We present BramblePO, a policy optimisation method that uses reinforcement learning "
                        "for robot navigation."),
    ("AlphaConf", 2022, "We propose LumenGAN, which combines a generative adversarial network with a diffusion "
                        "model for image generation, evaluated on CIFAR-10."),
]
NEW = [
    ("BetaConf", 2023, "We propose VexDiff, which uses a diffusion model for image generation, evaluated on "
                       "CIFAR-10."),
    ("BetaConf", 2023, "We introduce PallaDiff, which uses a diffusion model for image generation on ImageNet."),
    ("BetaConf", 2024, "We present MorrowDiff, which uses a diffusion model for image editing."),
    ("BetaConf", 2024, "We present TallowRL, which uses reinforcement learning for robot navigation."),
    ("BetaConf", 2024, "We propose KestrelDiff, which uses a diffusion model for image editing."),
]


def write_list(path: Path, rows) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i, (venue, year, abstract) in enumerate(rows):
            rec = {"id": f"{venue.lower()}-{year}-{i}", "venue": f"{venue} {year}", "year": year,
                   "title": abstract.split(",")[0], "abstract": abstract}
            fh.write(json.dumps(rec) + "\n")
    return path
