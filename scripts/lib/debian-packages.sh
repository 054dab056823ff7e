# Sourced by the install and bench scripts: installs the Debian packages it is given that
# are not installed yet (apt-get update only when something is missing). A first install
# (chromium alone is ~100 MB) takes minutes: each package is named as it is set up.
ensure_debian_packages() {
  local what=$1; shift
  local missing=() pkg
  for pkg in "$@"; do
    [[ " ${missing[*]} " == *" $pkg "* ]] && continue # named twice (a helper's APT_PACKAGES and the main list)
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing $what: ${missing[*]} (with their dependencies; this can take a few minutes)"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  # The test command installs from several background jobs at once (containers, Swift, the
  # Kubernetes tools): one apt at a time, in turn, and a wait for any other apt on the machine
  # rather than a failure on its lock.
  exec {apt_lock}>"${DESKGATE_APT_LOCK:-/tmp/deskgate-apt.lock}"
  flock "$apt_lock"
  local wait_lock=(-o DPkg::Lock::Timeout=600)
  say "  apt-get update"
  $sudo apt-get "${wait_lock[@]}" update -qq
  say "  downloading and unpacking"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get "${wait_lock[@]}" install -y -q --no-install-recommends "${missing[@]}" 2>&1 |
    while IFS= read -r line; do
      case $line in
        "Setting up "*) say "  ${line%% (*}" ;;
        E:*) say "  $line" ;;
      esac
    done
  local status=${PIPESTATUS[0]}
  exec {apt_lock}>&-
  [ "$status" -eq 0 ] || { say "apt-get install failed ($status)"; return "$status"; }
}
