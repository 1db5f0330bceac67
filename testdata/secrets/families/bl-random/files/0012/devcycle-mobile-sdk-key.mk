DEVCYCLE_TOKEN = "dvc_mobile_1er2hm96hg4gon20t4q1vhvx"
