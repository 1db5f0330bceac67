ETSY_TOKEN = "cyo5x0hmql80ggisvq2v641b"
