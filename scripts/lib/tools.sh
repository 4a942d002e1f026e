# tools.sh — sourced by scripts/example.sh, scripts/test.sh and .ci/run: checks, before anything
# is built, that the tools a script needs are there.
#
#   oxidnn_require_tools NAME TOOL...
#
# TOOL is a command (cargo, cc, c++, cmake, pkg-config, valgrind, readelf, python3), venv (python3's
# venv with pip) or a cargo component (rustfmt, clippy); cmake must be ≥ 3.16. Missing commands are installed with apt-get
# and missing components with rustup when the script runs as root or with password-less sudo and
# OXIDNN_INSTALL_TOOLS is not 0. Otherwise it prints (as NAME) what is missing and the commands
# that install it, and exits 1. cargo itself is never installed (apt's may be older than 1.89).

# The apt package that provides a command.
oxidnn_apt_package() {
    case "$1" in
        cc) echo gcc ;;
        c++) echo g++ ;;
        readelf) echo binutils ;;
        venv) echo python3-venv ;;
        *) echo "$1" ;;
    esac
}

# Is TOOL there? (components through cargo, commands on PATH)
oxidnn_has_tool() {
    case "$1" in
        rustfmt) cargo fmt --version >/dev/null 2>&1 ;;
        clippy) cargo clippy --version >/dev/null 2>&1 ;;
        venv) python3 -c 'import ensurepip, venv' >/dev/null 2>&1 ;;
        *) command -v "$1" >/dev/null 2>&1 ;;
    esac
}

# Sorts the missing TOOLs into the arrays apt (apt packages), rustup (components) and other.
oxidnn_missing_tools() {
    local tool
    apt=() rustup=() other=()
    for tool in "$@"; do
        oxidnn_has_tool "$tool" && continue
        case "$tool" in
            cargo) other+=("cargo: install a Rust toolchain ≥ 1.89, e.g. from https://rustup.rs") ;;
            rustfmt | clippy) rustup+=("$tool") ;;
            *) apt+=("$(oxidnn_apt_package "$tool")") ;;
        esac
    done
}

oxidnn_require_tools() {
    local name=$1 sudo="" can_install=0 apt rustup other
    shift
    if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
    if [ "${OXIDNN_INSTALL_TOOLS:-1}" != 0 ] && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
        can_install=1
    fi
    oxidnn_missing_tools "$@"
    if [ ${#other[@]} = 0 ] && [ $can_install = 1 ]; then
        if [ ${#apt[@]} -gt 0 ] && command -v apt-get >/dev/null; then
            echo "$name: installing ${apt[*]} with apt-get"
            $sudo apt-get update -q
            DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${apt[@]}"
        fi
        if [ ${#rustup[@]} -gt 0 ] && command -v rustup >/dev/null; then
            echo "$name: installing ${rustup[*]} with rustup"
            rustup component add "${rustup[@]}"
        fi
        oxidnn_missing_tools "$@"
    fi
    if [ ${#apt[@]} -gt 0 ]; then
        other+=("missing ${apt[*]}: install with  sudo apt-get install -y ${apt[*]}")
    fi
    if [ ${#rustup[@]} -gt 0 ]; then
        other+=("missing ${rustup[*]}: install with  rustup component add ${rustup[*]}")
    fi
    if [ ${#other[@]} = 0 ] && [[ " $* " == *" cmake "* ]]; then
        local version
        version=$(cmake --version | sed -n 's/^cmake version \([0-9][0-9.]*\).*/\1/p')
        if [ "$(printf '%s\n' 3.16 "$version" | sort -V | head -1)" != 3.16 ]; then
            other+=("cmake $version is older than 3.16")
        fi
    fi
    if [ ${#other[@]} -gt 0 ]; then
        echo "$name: cannot start, tools are missing (nothing was built):" >&2
        printf '  %s\n' "${other[@]}" >&2
        if [ $can_install = 0 ] && [ "${OXIDNN_INSTALL_TOOLS:-1}" != 0 ]; then
            echo "  (run as root or with password-less sudo to have $name install them)" >&2
        fi
        exit 1
    fi
}

# The tools scripts/test.sh needs (valgrind unless OXIDNN_TEST_VALGRIND=0, venv unless
# OXIDNN_TEST_PYTHON=0).
oxidnn_test_tools() {
    echo cargo rustfmt clippy cc c++ cmake pkg-config readelf python3
    [ "${OXIDNN_TEST_VALGRIND:-1}" = 0 ] || echo valgrind
    [ "${OXIDNN_TEST_PYTHON:-1}" = 0 ] || echo venv
}
