"""Blind-enough deblurring for QR codes: estimate a linear motion blur and undo it by Wiener deconvolution.

A card moved while the shutter was open is smeared along one direction. A QR code (and the lava around
it) has about as many horizontal as vertical edges, so the blur shows up as anisotropic gradients: the
weak-gradient direction is the blur's, and the eigenvalue ratio is a rough length. Deconvolving with
that kernel (or a couple of lengths around it) brings back the finder rings the finder search needs and
module contrast the grid sampler needs. Costs a few milliseconds on a half-size frame (OpenCV's DFT).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_decoders import GreyImage, as_grey

FloatGrid = npt.NDArray[np.float32]


def estimate_blur(view: GreyImage, unit: float) -> tuple[float, float]:
    """(direction in radians, length in pixels) of a linear blur, from the anisotropy of the gradients.

    An unblurred code has about as many horizontal as vertical edges, so its gradient structure tensor
    is nearly isotropic; a blur along a direction weakens the gradients along it. The ratio of the
    tensor's eigenvalues gives a rough length, enough to choose a deconvolution kernel.
    """
    g = view.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    jxx, jyy, jxy = float((gx * gx).mean()), float((gy * gy).mean()), float((gx * gy).mean())
    tr, det = jxx + jyy, jxx * jyy - jxy * jxy
    disc = math.sqrt(max(tr * tr / 4 - det, 0.0))
    big, small = tr / 2 + disc, max(tr / 2 - disc, 1e-6)
    angle = 0.5 * math.atan2(2 * jxy, jxx - jyy) + math.pi / 2  # the weak-gradient direction
    anisotropy = math.sqrt(big / small)
    return angle, min(3.0 * unit, (anisotropy - 1.0) * 1.6 * unit)


def motion_kernel(angle: float, length: float, size: int) -> FloatGrid:
    """A normalised `size` x `size` line kernel `length` pixels long at `angle` (anti-aliased)."""
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = math.cos(angle) * (length - 1) / 2, math.sin(angle) * (length - 1) / 2
    cv2.line(kernel, (round((c - dx) * 16), round((c - dy) * 16)), (round((c + dx) * 16), round((c + dy) * 16)),
             1.0, 1, cv2.LINE_AA, 4)
    total = float(kernel.sum())
    if total <= 0:
        kernel[c, c] = 1.0
        total = 1.0
    return np.asarray(kernel / total, dtype=np.float32)



def deconvolve(view: GreyImage, angle: float, length: float, snr: float = 0.02) -> GreyImage:
    """Wiener deconvolution of a linear motion blur (reflect-padded so the edges do not ring)."""
    size = max(3, math.ceil(length) | 1)
    pad = size + 2
    h0, w0 = view.shape
    h, w = cv2.getOptimalDFTSize(h0 + 2 * pad), cv2.getOptimalDFTSize(w0 + 2 * pad)
    img = cv2.copyMakeBorder(view, pad, h - h0 - pad, pad, w - w0 - pad, cv2.BORDER_REFLECT).astype(np.float32)
    psf = np.zeros((h, w), np.float32)
    psf[:size, :size] = motion_kernel(angle, length, size)
    psf = np.roll(psf, (-(size // 2), -(size // 2)), axis=(0, 1))
    spec_img = cv2.dft(img, flags=cv2.DFT_COMPLEX_OUTPUT)
    spec_psf = cv2.dft(psf, flags=cv2.DFT_COMPLEX_OUTPUT)
    power = spec_psf[..., 0] ** 2 + spec_psf[..., 1] ** 2 + snr
    # (img * conj(psf)) / (|psf|^2 + snr), written out on the real and imaginary planes
    re = (spec_img[..., 0] * spec_psf[..., 0] + spec_img[..., 1] * spec_psf[..., 1]) / power
    im = (spec_img[..., 1] * spec_psf[..., 0] - spec_img[..., 0] * spec_psf[..., 1]) / power
    out = cv2.idft(np.dstack([re, im]).astype(np.float32), flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
    return as_grey(np.clip(out[pad : pad + h0, pad : pad + w0], 0, 255))


