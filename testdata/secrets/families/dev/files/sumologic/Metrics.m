- (NSNumber *)sumOfProperty:(NSString *)property;
sumOfExposures = sumOfExposures;
