package ci

// Fine-grained tokens are github_pat_<22>_<59>; github_pat_m14TUOizwd1iaeOV4qBkdf alone is only the id part.
