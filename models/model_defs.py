"""Model definitions shared by make_models.py and train_vgg7.py.

VGG-7 follows Table 1 of the OTune paper (Wang et al., in-circuit tuning): three blocks of two
3x3 convolutions (32, 64, 128 filters, ReLU) each followed by a 2x2 max-pool, then Dense 128
(ReLU) and Dense 10 (softmax). The paper feeds 32x32x3 CIFAR-10 images (a 4x4x128 = 2048-wide
dense input); here the input is a 28x28 grey image, so the pools give 14, 7 and 3 (floor) and the
first dense layer is 3x3x128 = 1152 wide.

The DCGAN generator is the classic one of Radford et al. as in PyTorch's examples: nz=100,
ngf=64, five transposed convolutions from a 1x1 latent to a 3x64x64 image, batch norm and ReLU
in between, tanh at the end, weights drawn from N(0, 0.02) (batch-norm scales from N(1, 0.02)).
"""
import torch
import torch.nn as nn


class VGG7(nn.Module):
    def __init__(self, in_channels=1, image_size=28, num_classes=10, softmax=True):
        super().__init__()

        def block(cin, cout):
            return [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True),
                    nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU(inplace=True),
                    nn.MaxPool2d(2)]

        self.features = nn.Sequential(*block(in_channels, 32), *block(32, 64), *block(64, 128))
        side = image_size // 2 // 2 // 2
        self.classifier = nn.Sequential(
            nn.Flatten(1), nn.Linear(128 * side * side, 128), nn.ReLU(inplace=True),
            nn.Linear(128, num_classes))
        self.softmax = nn.Softmax(dim=1) if softmax else nn.Identity()
        # He initialization: with torch's default (uniform, a=sqrt(5)) the eight layers without
        # batch norm shrink the signal by about 3x per layer in variance and training starts slowly.
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.softmax(self.classifier(self.features(x)))

    def logits(self, x):
        return self.classifier(self.features(x))


class DCGANGenerator(nn.Module):
    def __init__(self, nz=100, ngf=64, nc=3):
        super().__init__()

        def up(cin, cout, stride, pad):
            return [nn.ConvTranspose2d(cin, cout, 4, stride, pad, bias=False),
                    nn.BatchNorm2d(cout), nn.ReLU(True)]

        self.main = nn.Sequential(
            *up(nz, ngf * 8, 1, 0),       # 1x1 -> 4x4
            *up(ngf * 8, ngf * 4, 2, 1),  # -> 8x8
            *up(ngf * 4, ngf * 2, 2, 1),  # -> 16x16
            *up(ngf * 2, ngf, 2, 1),      # -> 32x32
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),  # -> 64x64
            nn.Tanh())
        for m in self.modules():
            if isinstance(m, nn.ConvTranspose2d):
                nn.init.normal_(m.weight, 0.0, 0.02)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.normal_(m.weight, 1.0, 0.02)
                nn.init.zeros_(m.bias)

    def forward(self, z):
        return self.main(z)
