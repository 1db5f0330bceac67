from huggingface_hub import hf_hub_download
token = "hf_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
