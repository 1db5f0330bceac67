const insights = new Insights({
                    insertKey: "NRII-3nbcrMjHHs0RrT3GhRNqpd16YVMFHdcI")
const headers = {
 "Api-Key": "NRII-7a6SL_Pau5Dz923jEuBEylu3clzXzfby"
}
const query = {
  "querykey": "NRIQ-pD-yUGl9Z3ACIJ89V-zGkhMxFJE5O121",
}
