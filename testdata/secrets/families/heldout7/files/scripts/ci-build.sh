docker run -it \
    -e DRONE_TOKEN=sjG7nw27VpUtwf0kfkQ38QGhJO2u9EQG \
    -e DRONE_SERVER=https://drone.corp.internal \
    drone/cli:1.8 build ls org/repo
