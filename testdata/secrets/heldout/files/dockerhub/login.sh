docker login -u gemesa -p dckr_pat_hc8VxYclixyTr2rDFsa2rqzkP3Y
docker login -u gemesa -p dckr_pat_tkzBYxjNNC3R_Yg6jd_O-G8FbrJ
docker login -u gemesa -p dckr_pat_1q8yKET1VDJTpfCwseUDzT8vFh-
