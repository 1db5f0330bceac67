export PATH="$HOME/bin:$PATH"
export SNYK_TOKEN="444edbba-c683-c132-41d2-9abefa12586c"
export SONAR_TOKEN=sqp_c8e4902529c4ff1dbaa26cca0f93d674a105da71
export SUMO_ACCESS_KEY='qC1bZFMzyBgE9gzhuqLcIUERMWCXWRWGUGXDwTP4xsoMtiIIegaxJfIvSkLebJwN'
export SONAR_HOST_URL="${SONAR_HOST_URL:-https://sonarcloud.io}"
