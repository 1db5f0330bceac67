#!/bin/sh
export GH_TOKEN=ghp_x423jAXT3vi7dHRCWVGNqkevtn0RKqoKaCmn
gh release create "$TAG"
