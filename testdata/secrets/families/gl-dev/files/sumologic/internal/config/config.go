package config

var (
SUMO_ACCESS_KEY=${SUMO_ACCESS_KEY:=$2}
)
