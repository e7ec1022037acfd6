# syntax=docker/dockerfile:1
# The images the cluster manifests run (docs/cluster.md#kubernetes):
#
#   docker build -t search-reward:latest .
#       GPU nodes: the vLLM judges (cluster/kuberay/judges.yaml), the reward app calling them and the trainer's Ray
#       cluster (rayservice.yaml, raycluster.yaml): extras serve,train,vllm pinned by requirements-gpu.lock (verl
#       0.9.1, vLLM 0.24.0, torch 2.11.0 CUDA 13, Ray 2.60.0) plus Transformer Engine's PyTorch extension, built
#       against that torch.
#   docker build --target cpu -t search-reward-cpu:latest .
#       The reward server with the embedded CPU judge tier (what `make run` installs: extras serve,local pinned by
#       requirements.lock, torch 2.13.0 CPU). The two sets conflict (torch), so they are two images.
#
# Both hold this repository at /app (the manifests' workingDir: configs/ and rubrics/ resolve there) and Python 3.11,
# the version the locks are resolved for.

ARG CUDA_IMAGE=nvidia/cuda:13.0.1-cudnn-devel-ubuntu22.04

FROM python:3.11-slim-bookworm AS cpu
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY . .
# Every version comes from the lock (-c); the extras name what is installed.
# hadolint ignore=DL3013
RUN python -m pip install -c requirements.lock ".[serve,local]"
EXPOSE 8000
CMD ["reward", "serve", "--host", "0.0.0.0"]

FROM ${CUDA_IMAGE} AS gpu
ARG DEBIAN_FRONTEND=noninteractive
# Ubuntu 22.04 ships Python 3.11 (universe); nvcc from the CUDA devel image builds Transformer Engine's extension.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3.11 python3.11-venv python3.11-dev build-essential git \
 && rm -rf /var/lib/apt/lists/*
RUN python3.11 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY . .
# The same two steps as docs/training.md#the-gpu-environment; versions from requirements-gpu.lock.
# hadolint ignore=DL3013
RUN pip install -c requirements-gpu.lock ".[serve,train,vllm]" \
 && pip install -c requirements-gpu.lock --no-build-isolation transformer-engine-torch
EXPOSE 8000 8100
CMD ["reward", "serve", "--host", "0.0.0.0"]
