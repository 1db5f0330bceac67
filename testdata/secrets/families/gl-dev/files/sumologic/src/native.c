- (NSNumber *)sumOfProperty:(NSString *)property;
- (NSInteger)sumOfValuesInRange:(NSRange)range;
+ (unsigned char)byteChecksumOfData:(id)arg1;
