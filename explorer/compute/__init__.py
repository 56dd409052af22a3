"""What each page computes, one module per page (explorer/compute/<page>.py): cached calls into
posenc that a page script makes, so the script itself holds only controls, calls and layout.
"""
