oc login --token=sha256~T80ZbOuZw2QCiGPiHtsArJOSshghM4Jc7D7erMImuEz --server=https://api.ocp.internal:6443
