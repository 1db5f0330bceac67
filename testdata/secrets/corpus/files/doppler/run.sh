doppler run --token dp.pt.60sRIcmkClFpsZsjBkY4cTC2eD2XoI65WKKCU6oCCd8 -- ./server
