interface Exchange {
    dapiDataGetTopLongShortPositionRatio (params?: {}): Promise<implicitReturnType>;
}
