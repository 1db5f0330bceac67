# A three-part base64url value in a file that never mentions the chat service:
session = 'MTFeNBTxaQWk8JzFalHlsZfYcM.MDktXP._tKsf2rcDkdfrUnW5gcF-Ha6ili8GjHEAD6_Wj'
