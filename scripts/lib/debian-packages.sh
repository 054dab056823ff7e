# Sourced by the install and bench scripts: installs the Debian packages it is given that
# are not installed yet (apt-get update only when something is missing). A first install
# (chromium alone is ~100 MB) takes minutes: each package is named as it is set up.
ensure_debian_packages() {
  local what=$1; shift
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing $what: ${missing[*]} (with their dependencies; this can take a few minutes)"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  say "  apt-get update"
  $sudo apt-get update -qq
  say "  downloading and unpacking"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" 2>&1 |
    while IFS= read -r line; do
      case $line in
        "Setting up "*) say "  ${line%% (*}" ;;
        E:*) say "  $line" ;;
      esac
    done
  local status=${PIPESTATUS[0]}
  [ "$status" -eq 0 ] || { say "apt-get install failed ($status)"; return "$status"; }
}
