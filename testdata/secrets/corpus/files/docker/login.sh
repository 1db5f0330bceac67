echo dckr_pat_EkB8z4OuhgPqizf5M7BXx5jR8T5 | docker login -u ci --password-stdin
